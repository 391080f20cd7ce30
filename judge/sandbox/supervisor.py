"""The supervisor: a trusted process between the zygote and the learner's process.

The zygote forks it; it enters the new namespaces and forks the sandbox's
init, PID 1 of a fresh pid namespace, which isolates itself and forks the
learner's process; when the learner's process ends, the init exits and the
kernel ends every process the learner started.  The supervisor stays outside that
namespace (the learner cannot see or signal it), watches the wall clock per
case and in total, and reports the kernel's wait status and resource usage.
"""

from __future__ import annotations

import json
import mmap
import os
import select
import signal
import time
import traceback
from dataclasses import asdict, dataclass

from judge.sandbox import linux
from judge.sandbox.harness import Harness
from judge.sandbox.isolation import ChildLimits, become_sandboxed, become_unsandboxed, redirect_output
from judge.sandbox.progress import PHASE_RUNNING, ProgressPage
from judge.sandbox.rootfs import RootPlan
from judge.sandbox.seccomp import DenyListFilter

NAMESPACES = linux.CLONE_NEWPID | linux.CLONE_NEWNS | linux.CLONE_NEWNET | linux.CLONE_NEWIPC | linux.CLONE_NEWUTS
_POLL_MS = 20
SETUP_FAILED_EXIT = 121
SETUP_DONE = b"\0setup-done"


@dataclass
class SupervisorReport:
    """What the supervisor saw, from its own clock and the kernel."""

    exit_code: int | None = None
    signal: int | None = None
    wall_ns: int = 0
    user_ns: int = 0
    sys_ns: int = 0
    maxrss_kib: int = 0
    timed_out: str | None = None  # "case" or "total" when the supervisor killed for wall time
    last_case: int = -1
    setup_error: str | None = None


@dataclass
class RunMaps:
    """Mappings the zygote prepared for one run; inherited through both forks."""

    inputs: mmap.mmap | None
    pristine: mmap.mmap | None
    results: mmap.mmap
    stdout_fd: int
    stderr_fd: int


def _init(request: dict, maps: RunMaps, progress: ProgressPage, plan: RootPlan | None,
          seccomp: DenyListFilter | None, status_w: int) -> None:
    """PID 1 of the sandbox: isolate, fork the learner's process, reap, report.  Never returns.

    The learner's code does not run as PID 1 itself, because the kernel drops
    default-action signals sent to a namespace's init from inside it: ``abort()``
    or a signal to itself would not behave as on a normal machine.  This init
    has no signal handlers (so nothing in the namespace can signal it), reports
    the learner's wait status -- a kernel record -- on a pipe only it holds,
    and its exit ends every process left in the namespace.
    """
    try:
        # A session and process group of the sandbox's own: otherwise the learner shares the judge's
        # process group, and killpg(0, ...) (not limited by pid namespaces) reaches every other
        # sandbox's learner, uid 65534 too, of the same judge.
        os.setsid()
        signal.signal(signal.SIGINT, signal.SIG_DFL)  # no handler left for the learner to trigger
        limits = ChildLimits(cpu_seconds=request["limits"]["cpu_seconds"],
                             output_bytes=request["limits"]["output_bytes"])
        redirect_output(maps.stdout_fd, maps.stderr_fd)
        os.dup2(status_w, 3)
        if plan is not None and seccomp is not None:
            become_sandboxed(plan, limits, seccomp)  # closes every fd but 0-3
        else:
            become_unsandboxed(limits)
        learner = os.fork()
    except BaseException:  # noqa: BLE001 - report why isolation failed, never run unisolated
        try:
            os.write(3, traceback.format_exc().encode()[-2000:])
        finally:
            os._exit(SETUP_FAILED_EXIT)
    if learner == 0:
        os.close(3)
        code = 0
        try:
            Harness(request, maps.inputs, maps.pristine, maps.results, progress).run()
        except BaseException:  # noqa: BLE001
            code = 1
        os._exit(code)
    os.write(3, SETUP_DONE)
    while True:  # reap orphans the learner leaves until the learner itself ends
        pid, status = os.waitpid(-1, 0)
        if pid == learner:
            break
    os.write(3, json.dumps({"wait_status": status}).encode())
    os._exit(0)


def _wait(pid: int, request: dict, progress: ProgressPage, report: SupervisorReport) -> None:
    limits = request["limits"]
    case_limits = {c["case"]: c["wall_seconds"] for c in request["calls"]}
    start = time.monotonic_ns()
    deadline = start + int(limits["wall_seconds"] * 1e9)
    pidfd = os.pidfd_open(pid)
    poller = select.poll()
    poller.register(pidfd, select.POLLIN)
    try:
        while True:
            if poller.poll(_POLL_MS):
                break
            now = time.monotonic_ns()
            case, case_start, phase = progress.read()
            if now >= deadline:
                report.timed_out = "total"
            elif phase == PHASE_RUNNING and case in case_limits and now - case_start > case_limits[case] * 1e9:
                report.timed_out = "case"
            if report.timed_out:
                os.kill(pid, signal.SIGKILL)
                break
    finally:
        os.close(pidfd)
    _, status, usage = os.wait4(pid, 0)
    report.wall_ns = time.monotonic_ns() - start
    report.user_ns = int(usage.ru_utime * 1e9)
    report.sys_ns = int(usage.ru_stime * 1e9)
    report.maxrss_kib = int(usage.ru_maxrss)
    if os.WIFSIGNALED(status):
        report.signal = os.WTERMSIG(status)
    else:
        report.exit_code = os.WEXITSTATUS(status)
    report.last_case = progress.read()[0]


def supervise(request: dict, maps: RunMaps, progress: ProgressPage, plan: RootPlan | None,
              seccomp: DenyListFilter | None, report_w: int) -> None:
    """Body of the supervisor process.  Writes a JSON report to ``report_w`` and exits."""
    report = SupervisorReport()
    status_r, status_w = os.pipe()
    try:
        if plan is not None:
            linux.unshare(NAMESPACES)
        pid = os.fork()
        if pid == 0:
            os.close(status_r)
            _init(request, maps, progress, plan, seccomp, status_w)
        os.close(status_w)
        _wait(pid, request, progress, report)
        status = b""
        while chunk := os.read(status_r, 4096):
            status += chunk
        if not status.startswith(SETUP_DONE):
            report.setup_error = status.decode(errors="replace") or "the sandbox died during setup"
        elif status != SETUP_DONE and report.timed_out is None:
            # The learner's own wait status, as its init reaped it; the init's is only its messenger.
            learner = json.loads(status[len(SETUP_DONE):])["wait_status"]
            report.signal = os.WTERMSIG(learner) if os.WIFSIGNALED(learner) else None
            report.exit_code = None if os.WIFSIGNALED(learner) else os.WEXITSTATUS(learner)
    except BaseException:  # noqa: BLE001
        report.setup_error = traceback.format_exc()[-2000:]
    os.write(report_w, json.dumps(asdict(report)).encode())
    os._exit(0)
