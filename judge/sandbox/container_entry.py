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
import sys
import traceback

JUDGE_DIR = "/judge"
SETUP_FAILED_EXIT = 121


def _map(path: str, size: int, access: int) -> mmap.mmap:
    fd = os.open(path, os.O_RDWR if access == mmap.ACCESS_WRITE else os.O_RDONLY)
    try:
        return mmap.mmap(fd, size, access=access)
    finally:
        os.close(fd)


REPORT_MARKER = "\0judge-init "


def _report(fd: int, payload: dict) -> None:
    os.write(fd, (REPORT_MARKER + json.dumps(payload) + "\n").encode())


def main() -> None:
    """PID 1 of the container: set up, fork the learner's process, reap, report on the engine's log.

    As in the process backend, learner code does not run as PID 1 (the kernel
    drops default-action signals sent to a namespace's init from inside it, so
    ``abort()`` or a signal to itself would not behave as on a normal machine).
    The report goes to the container's original stdout, which only this init
    holds (the learner's stdout is a file); the judge reads it from the
    engine's log after the container ended.
    """
    report_fd = os.dup(1)
    try:
        import signal

        signal.signal(signal.SIGINT, signal.SIG_DFL)  # no handler left for the learner to trigger
        with open(os.path.join(JUDGE_DIR, "request.json"), "rb") as f:
            request = json.loads(f.read())
        from judge.sandbox.isolation import CHILD_ENV, ChildLimits, apply_rlimits, close_other_fds, redirect_output
        from judge.sandbox.progress import ProgressPage

        stdout_fd = os.open(os.path.join(JUDGE_DIR, "stdout"), os.O_WRONLY | os.O_APPEND)
        stderr_fd = os.open(os.path.join(JUDGE_DIR, "stderr"), os.O_WRONLY | os.O_APPEND)
        redirect_output(stdout_fd, stderr_fd)
        results = _map(os.path.join(JUDGE_DIR, "results"), request["result_size"], mmap.ACCESS_WRITE)
        inputs = pristine = None
        if request["input_size"]:
            inputs = _map(os.path.join(JUDGE_DIR, "inputs"), request["input_size"], mmap.ACCESS_COPY)
            pristine = _map(os.path.join(JUDGE_DIR, "inputs"), request["input_size"], mmap.ACCESS_READ)
        progress = ProgressPage.over_file(os.path.join(JUDGE_DIR, "progress"))

        import numpy  # noqa: F401 - imported before the filter and the fork, as in the zygote

        from judge.sandbox import linux
        from judge.sandbox.harness import Harness
        from judge.sandbox.seccomp import DenyListFilter

        seccomp = DenyListFilter()
        close_other_fds(keep=(0, 1, 2, report_fd))
        os.environ.clear()
        os.environ.update(CHILD_ENV)
        os.chdir("/tmp")
        apply_rlimits(ChildLimits(cpu_seconds=request["limits"]["cpu_seconds"],
                                  output_bytes=request["limits"]["output_bytes"]))
        linux.prctl(linux.PR_SET_DUMPABLE, 0)
        linux.prctl(linux.PR_SET_NO_NEW_PRIVS, 1)
        seccomp.load()
        learner = os.fork()
    except BaseException:  # noqa: BLE001 - the judge reports it as a sandbox failure, never runs unisolated
        try:
            _report(report_fd, {"setup_error": traceback.format_exc()[-2000:]})
        finally:
            os._exit(SETUP_FAILED_EXIT)
    if learner == 0:
        os.close(report_fd)
        code = 0
        try:
            Harness(request, inputs, pristine, results, progress).run()
        except BaseException:  # noqa: BLE001
            code = 1
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)
    while True:  # reap orphans the learner leaves until the learner itself ends
        pid, status, usage = os.wait4(-1, 0)
        if pid == learner:
            break
    _report(report_fd, {"wait_status": status, "user_ns": int(usage.ru_utime * 1e9),
                        "sys_ns": int(usage.ru_stime * 1e9), "maxrss_kib": int(usage.ru_maxrss)})
    os._exit(0)  # ends every process left in the container


if __name__ == "__main__":
    main()
