"""What runs inside a per-submission container (the container backend's learner process).

The judge (:mod:`judge.sandbox.backends.container_client`) starts one container per submission
as uid 65534, with no network, no capabilities, no-new-privileges, a read-only
root and memory/pid limits, and bind-mounts single files of a per-run host
directory under ``/judge``:

=================  ====  =====================================================
``request.json``   ro    the request the zygote would get (source, calls, limits)
``inputs``         ro    the sealed input file's bytes; mapped copy-on-write
``results``        rw    pre-sized by the judge; slots in :mod:`judge.sandbox.boundary.wire`'s format
``progress``       rw    case index / start / phase, as :mod:`judge.sandbox.boundary.progress`
``stdout``         rw    the learner's standard output (capped by RLIMIT_FSIZE)
``stderr``         rw    the learner's standard error
=================  ====  =====================================================

This process is PID 1 of the container, the sandbox's init: it redirects
output, closes every other descriptor, clears the environment, lowers its
rlimits, loads the same seccomp deny-list as the process backend (stacked on
the engine's default profile), then forks the learner's process, which runs
the same :class:`judge.sandbox.chain.harness.Harness`.  The init reaps, and reports
the learner's wait status and rusage on the engine's log.  Times, OOM kills
and wall limits come from the engine and the judge's own clock.
"""

from __future__ import annotations

import json
import mmap
import os
import traceback

from judge.sandbox.boundary.contract import SETUP_FAILED_EXIT

MOUNT_DIR = "/judge"  #: where the judge bind-mounts the run's files, one by one (the table above)
RUN_FILES = ("request.json", "results", "progress", "stdout", "stderr")  #: per run; ``inputs`` is shared
INPUTS = "inputs"
REPORT_MARKER = "\0judge-init "


def _map(path: str, size: int, access: int) -> mmap.mmap:
    fd = os.open(path, os.O_RDWR if access == mmap.ACCESS_WRITE else os.O_RDONLY)
    try:
        return mmap.mmap(fd, size, access=access)
    finally:
        os.close(fd)


def main() -> None:
    """PID 1 of the container: map the run's files, then the shared sandbox init
    (:func:`judge.sandbox.chain.supervisor.sandbox_init`) isolates, forks the learner's process,
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
        from judge.sandbox.boundary.contract import RunRequest
        from judge.sandbox.boundary.progress import ProgressPage
        from judge.sandbox.chain.supervisor import RunMaps, child_limits, sandbox_init
        from judge.sandbox.modes import mode_named
        from judge.sandbox.modes.base import Policy

        def path(name: str) -> str:
            return os.path.join(MOUNT_DIR, name)

        with open(path("request.json"), "rb") as f:
            request = RunRequest.from_wire(json.loads(f.read()))
        stdout_fd = os.open(path("stdout"), os.O_WRONLY | os.O_APPEND)
        stderr_fd = os.open(path("stderr"), os.O_WRONLY | os.O_APPEND)
        results = _map(path("results"), request.result_size, mmap.ACCESS_WRITE)
        inputs = pristine = None
        if request.input_size:
            inputs = _map(path(INPUTS), request.input_size, mmap.ACCESS_COPY)
            pristine = _map(path(INPUTS), request.input_size, mmap.ACCESS_READ)
        progress = ProgressPage.over_file(path("progress"))

        import numpy  # noqa: F401 - imported before the filter and the fork, as in the zygote

        from judge.sandbox.kernel.seccomp import DenyListFilter

        policy = Policy(mode=mode_named("container"), seccomp=DenyListFilter())
        limits = child_limits(request, policy, None)
    except BaseException:  # noqa: BLE001 - the judge reports it as a sandbox failure, never runs unisolated
        try:
            report({"setup_error": traceback.format_exc()[-2000:]})
        finally:
            os._exit(SETUP_FAILED_EXIT)

    sandbox_init(request, RunMaps(inputs, pristine, results, stdout_fd, stderr_fd), progress,
                 lambda: policy.mode.become(policy, limits, report_fd),  # type: ignore[call-arg]  # mode container's
                 report, report_fd)


if __name__ == "__main__":
    main()
