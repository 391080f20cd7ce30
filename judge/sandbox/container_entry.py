"""What runs inside a per-submission container (the container backend's learner process).

The judge (:mod:`judge.sandbox.container`) starts one container per submission
as uid 65534, with no network, no capabilities, no-new-privileges, a read-only
root and memory/pid limits, and bind-mounts single files of a per-run host
directory under ``/judge``:

=================  ====  =====================================================
``request.json``   ro    the request the zygote would get (source, calls, limits)
``inputs``         ro    the sealed input file's bytes; mapped copy-on-write
``results``        rw    pre-sized by the judge; slots in :mod:`judge.sandbox.wire`'s format
``progress``       rw    case index / start / phase, as :mod:`judge.sandbox.progress`
``stdout``         rw    the learner's standard output (capped by RLIMIT_FSIZE)
``stderr``         rw    the learner's standard error
=================  ====  =====================================================

This process is PID 1 of the container, the sandbox's init: it redirects
output, closes every other descriptor, clears the environment, lowers its
rlimits, loads the same seccomp deny-list as the process backend (stacked on
the engine's default profile), then forks the learner's process, which runs
the same :class:`judge.sandbox.harness.Harness`.  The init reaps, and reports
the learner's wait status and rusage on the engine's log.  Times, OOM kills
and wall limits come from the engine and the judge's own clock.
"""

from __future__ import annotations

import json
import mmap
import os
import traceback

from judge.sandbox.contract import SETUP_FAILED_EXIT

JUDGE_DIR = "/judge"
REPORT_MARKER = "\0judge-init "


def _map(path: str, size: int, access: int) -> mmap.mmap:
    fd = os.open(path, os.O_RDWR if access == mmap.ACCESS_WRITE else os.O_RDONLY)
    try:
        return mmap.mmap(fd, size, access=access)
    finally:
        os.close(fd)


def main() -> None:
    """PID 1 of the container: map the run's files, then the shared sandbox init
    (:func:`judge.sandbox.supervisor.sandbox_init`) isolates, forks the learner's process,
    reaps and reports.

    The report goes to the container's original stdout, which only this init holds (the
    learner's stdout is a file); the judge reads it from the engine's log after the
    container ended.
    """
    report_fd = os.dup(1)

    def report(payload: dict | None) -> None:
        if payload is not None:
            os.write(report_fd, (REPORT_MARKER + json.dumps(payload) + "\n").encode())

    try:
        from judge.sandbox.contract import RunRequest
        from judge.sandbox.isolation import CHILD_ENV, ChildLimits, apply_rlimits, close_other_fds
        from judge.sandbox.progress import ProgressPage
        from judge.sandbox.supervisor import RunMaps, sandbox_init

        with open(os.path.join(JUDGE_DIR, "request.json"), "rb") as f:
            request = RunRequest.from_wire(json.loads(f.read()))
        stdout_fd = os.open(os.path.join(JUDGE_DIR, "stdout"), os.O_WRONLY | os.O_APPEND)
        stderr_fd = os.open(os.path.join(JUDGE_DIR, "stderr"), os.O_WRONLY | os.O_APPEND)
        results = _map(os.path.join(JUDGE_DIR, "results"), request.result_size, mmap.ACCESS_WRITE)
        inputs = pristine = None
        if request.input_size:
            inputs = _map(os.path.join(JUDGE_DIR, "inputs"), request.input_size, mmap.ACCESS_COPY)
            pristine = _map(os.path.join(JUDGE_DIR, "inputs"), request.input_size, mmap.ACCESS_READ)
        progress = ProgressPage.over_file(os.path.join(JUDGE_DIR, "progress"))

        import numpy  # noqa: F401 - imported before the filter and the fork, as in the zygote

        from judge.sandbox import linux
        from judge.sandbox.seccomp import DenyListFilter

        seccomp = DenyListFilter()
    except BaseException:  # noqa: BLE001 - the judge reports it as a sandbox failure, never runs unisolated
        try:
            report({"setup_error": traceback.format_exc()[-2000:]})
        finally:
            os._exit(SETUP_FAILED_EXIT)

    def become() -> None:
        """The engine already gave namespaces, uid 65534, no capabilities; add what the zygote's
        children get: closed fds, a clean environment, rlimits, no_new_privs, the deny-list."""
        close_other_fds(keep=(0, 1, 2, report_fd))
        os.environ.clear()
        os.environ.update(CHILD_ENV)
        os.chdir("/tmp")
        apply_rlimits(ChildLimits(cpu_seconds=request.limits.cpu_seconds,
                                  output_bytes=request.limits.output_bytes))
        linux.prctl(linux.PR_SET_DUMPABLE, 0)
        linux.prctl(linux.PR_SET_NO_NEW_PRIVS, 1)
        seccomp.load()

    sandbox_init(request, RunMaps(inputs, pristine, results, stdout_fd, stderr_fd), progress, become, report,
                 report_fd)


if __name__ == "__main__":
    main()
