"""The supervisor: a trusted process between the zygote and the learner's process.

The zygote forks it; it enters the new namespaces (modes full and rootless)
and forks the sandbox's init, which isolates itself as its mode says and forks
the learner's process; when the learner's process ends, the init exits (in a
pid namespace the kernel then ends every process the learner started;
otherwise the zygote kills them).  The supervisor stays outside the sandbox
(the learner cannot signal it), watches the wall clock per case and in total
and, in the rlimits modes, the learner's memory, and reports the kernel's wait
status and resource usage.
"""

from __future__ import annotations

import fcntl
import json
import mmap
import os
import resource
import select
import signal
import time
import traceback
from dataclasses import dataclass
from typing import TYPE_CHECKING

from judge.sandbox.boundary.contract import NAMESPACES, SETUP_FAILED_EXIT, RunReport, RunRequest
from judge.sandbox.boundary.progress import ProgressPage
from judge.sandbox.chain.harness import Harness
from judge.sandbox.chain.watch import POLL_SECONDS, MemoryWatch, Watchdog, kill_tree
from judge.sandbox.kernel import linux
from judge.sandbox.kernel.lockdown import KEPT_BY_INIT, ChildLimits, redirect_output
from judge.sandbox.modes.base import Policy

if TYPE_CHECKING:
    from collections.abc import Callable

NAMESPACE_FLAGS = linux.namespace_flags(NAMESPACES)
SETUP_DONE = b"\0setup-done"
#: What a learner's process writes on the status pipe (then exits) when its own part of the set-up failed: its
#: code never ran.  Only set-up code can write it: the pipe is closed before the learner's file is loaded.
LEARNER_SETUP_FAILED = b"\0learner-setup-failed "


@dataclass
class RunMaps:
    """Mappings the zygote prepared for one run; inherited through both forks."""

    inputs: mmap.mmap | None
    pristine: mmap.mmap | None
    results: mmap.mmap
    stdout_fd: int
    stderr_fd: int
    #: The learner's file, a read-only mapping of the sealed memfd the judge sent: only the learner's own
    #: process reads its bytes (:meth:`source_text`), so the zygote every later run is forked from never
    #: holds them.  None where the request carries the source itself (the container backend's file).
    source: mmap.mmap | None = None
    #: A gated run (the judge was still clearing the result buffer when it sent the request): the read end of a
    #: pipe whose one byte ``1`` the zygote writes once the judge has said the buffer is clear.  The sandbox's init
    #: isolates itself meanwhile, then reads it and closes it before the learner's process exists; no byte, and the
    #: run is a set-up failure: no learner process.
    gate: int | None = None

    def source_text(self, request: RunRequest) -> str:
        """The learner's source, decoded in the process that runs it."""
        if self.source is None:
            return request.source
        return bytes(self.source).decode("utf-8")


@dataclass
class MemoryBudget:
    """The rlimits modes' memory numbers for one run, from the zygote's own measurements."""

    watch_bytes: int  #: resident-set limit of any learner process (baseline + the bundle's limit)
    address_space: int  #: RLIMIT_AS backstop


def vm_size() -> int:
    """This process's virtual size in bytes (the baseline a run's RLIMIT_AS is added to)."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[0]) * mmap.PAGESIZE


USAGE_FIELDS = ("user_ns", "sys_ns", "maxrss_kib")


def usage_fields(usage: resource.struct_rusage) -> dict[str, int]:
    """The RunReport fields (USAGE_FIELDS) wait4's rusage gives: user and system CPU, the largest
    resident set; the supervisor's wait for the init and the init's report of the learner say them alike."""
    return dict(zip(USAGE_FIELDS, (int(usage.ru_utime * 1e9), int(usage.ru_stime * 1e9), int(usage.ru_maxrss))))


def child_limits(request: RunRequest, policy: Policy, budget: MemoryBudget | None) -> ChildLimits:
    limits = request.limits
    return ChildLimits(cpu_seconds=limits.cpu_seconds, output_bytes=limits.output_bytes,
                       address_space=budget.address_space if budget else None,
                       processes=limits.max_processes + 1 if policy.own_uid_count else None)  # + the init


def sandbox_init(request: RunRequest, maps: RunMaps, progress: ProgressPage, become: Callable[[], None],
                 report: Callable[[dict | None], None], report_fd: int,
                 become_learner: Callable[[], None] | None = None, gate: Callable[[], None] | None = None) -> None:
    """PID 1 of the sandbox (or its subreaper): isolate, fork the learner's process, reap, report.

    Never returns.  ``become()`` isolates this process (its mode's steps); ``report(dict)`` hands
    the learner's wait status -- a kernel record -- to the trusted side on ``report_fd``, which
    only this init holds (the learner's process closes it).  The learner's code does not run as PID 1 itself,
    because the kernel drops default-action signals sent to a namespace's init from inside it: ``abort()`` or a
    signal to itself would not behave as on a normal machine.  This init has no signal handlers; once the
    learner's process (in a process group of its own) is forked, it ignores every signal it can.  Shared by
    the process backend (report: a pipe to the supervisor) and the container backend (the
    engine's log).  ``become_learner()``, if given, runs in the learner's process right after the fork (mode
    reduced drops to the run's uid there, so that its init is not the learner's to kill).  ``gate()``, if given,
    runs once this process is isolated and before anything else: it returns when the learner's process may be
    forked (a gated run's result buffer is clear: :func:`_pass_gate`), else raises (a set-up failure, no learner).
    """
    try:
        # A session and process group of the sandbox's own: otherwise the learner shares the judge's
        # process group, and killpg(0, ...) (not limited by pid namespaces) reaches other sandboxes.
        # A container's entry process is already a session leader (setsid() then fails with EPERM).
        if os.getsid(0) != os.getpid():
            os.setsid()
        signal.signal(signal.SIGINT, signal.SIG_DFL)  # no handler left for the learner to trigger
        redirect_output(maps.stdout_fd, maps.stderr_fd)
        become()
        if gate is not None:
            gate()
    except BaseException:  # noqa: BLE001 - report why isolation failed, never run unisolated
        try:
            report({"setup_error": traceback.format_exc()[-2000:]})
        finally:
            os._exit(SETUP_FAILED_EXIT)
    # Without a pid namespace (reduced, none) the learner's uid could signal this init: ignore every signal
    # that can be ignored (not SIGCHLD: wait4 needs it; SIGKILL only ends the learner's own run), and say the
    # set-up is done, before the learner exists: a learner that kills this init at once (kill(-1, SIGKILL))
    # then ended its own run, never looked like a set-up that failed.
    dispositions = {}
    for sig in signal.valid_signals():
        if sig not in (signal.SIGCHLD, signal.SIGKILL, signal.SIGSTOP):
            try:
                dispositions[sig] = signal.signal(sig, signal.SIG_IGN)
            except (OSError, ValueError):
                pass
    report(None)  # set-up done
    learner = os.fork()
    if learner == 0:
        for sig, handler in dispositions.items():  # the learner's process starts as an ordinary one would
            try:
                signal.signal(sig, handler)
            except (OSError, ValueError, TypeError):
                pass
        if become_learner is not None:
            try:
                become_learner()
            except BaseException:  # noqa: BLE001 - never run learner code with the init's privileges
                try:
                    os.write(report_fd, LEARNER_SETUP_FAILED + traceback.format_exc()[-1500:].encode())
                finally:
                    os._exit(SETUP_FAILED_EXIT)
        os.close(report_fd)
        os.setpgid(0, 0)  # killpg(0) from the learner reaches its own group, never this init
        code = 0
        try:
            Harness(request, maps.inputs, maps.pristine, maps.results, progress, maps.source_text(request)).run()
        except BaseException:  # noqa: BLE001
            code = 1
        os._exit(code)
    while True:  # reap orphans the learner leaves until the learner itself ends
        pid, status, usage = os.wait4(-1, 0)
        if pid == learner:
            break
    report({"wait_status": status, **usage_fields(usage)})
    os._exit(0)


GATE_CLOSED = "the judge did not say the result buffer was clear: no learner code ran"
GATE_FD_MIN = 64  #: where the init keeps a gated run's gate: above every descriptor a mode's set-up puts in place


def _kept_gate(gate: int) -> int:
    """In the sandbox's init, before it isolates itself: the gate moved out of the way of the descriptors the
    set-up arranges (the status pipe becomes 3), and kept through the modes' ``close_other_fds``."""
    kept = fcntl.fcntl(gate, fcntl.F_DUPFD_CLOEXEC, GATE_FD_MIN)
    os.close(gate)
    KEPT_BY_INIT.add(kept)
    return kept


def _pass_gate(gate: int) -> None:
    """In the sandbox's init, isolated, before the learner's process exists: wait until a gated run's buffer is
    clear (see ``RunMaps.gate``), close the gate; raise if it ended without opening (a set-up failure)."""
    try:
        opened = os.read(gate, 1) == b"1"
    except OSError:
        opened = False
    finally:
        os.close(gate)
        KEPT_BY_INIT.discard(gate)
    if not opened:
        raise RuntimeError(GATE_CLOSED)


def _init(request: RunRequest, maps: RunMaps, progress: ProgressPage, policy: Policy,
          budget: MemoryBudget | None, status_w: int) -> None:
    gate = _kept_gate(maps.gate) if maps.gate is not None else None
    limits = child_limits(request, policy, budget)

    def report(payload: dict | None) -> None:
        if payload is None:
            os.write(3, SETUP_DONE)
        elif "setup_error" in payload:
            os.write(3, payload["setup_error"].encode())
        else:
            os.write(3, json.dumps(payload).encode())

    os.dup2(status_w, 3)
    sandbox_init(request, maps, progress, lambda: policy.mode.become(policy, limits), report, 3,
                 lambda: policy.mode.become_learner(policy, limits),
                 (lambda: _pass_gate(gate)) if gate is not None else None)


def _wait(pid: int, request: RunRequest, progress: ProgressPage, report: RunReport,
          memory: MemoryWatch | None) -> None:
    start = time.monotonic_ns()
    watchdog = Watchdog(request, start)
    pidfd = os.pidfd_open(pid)
    poller = select.poll()
    poller.register(pidfd, select.POLLIN)
    try:
        while not poller.poll(int(POLL_SECONDS * 1000)):
            if memory is not None and memory.poll():
                break
            report.timed_out = watchdog.expired(time.monotonic_ns(), progress.read())
            if report.timed_out:
                if memory is not None:
                    memory.kill()
                else:
                    os.kill(pid, signal.SIGKILL)
                break
    finally:
        os.close(pidfd)
    _, status, usage = os.wait4(pid, 0)
    report.wall_ns = time.monotonic_ns() - start
    report.update(usage_fields(usage))
    report.set_wait_status(status)
    report.last_case = progress.read()[0]


def supervise(request: RunRequest, maps: RunMaps, progress: ProgressPage, policy: Policy,
              budget: MemoryBudget | None, report_w: int) -> None:
    """Body of the supervisor process.  Writes a JSON report (RunReport fields) to ``report_w``, exits."""
    report = RunReport()
    status_r, status_w = os.pipe()
    proc = None
    try:
        linux.prctl(linux.PR_SET_CHILD_SUBREAPER, 1)  # the run's orphans come here, not to the zygote
        if policy.mode.namespaced:
            linux.unshare(NAMESPACE_FLAGS)
        # Held open: once the init has switched root, this mount namespace (ours too) has no /proc.
        proc = os.open("/proc", os.O_RDONLY | os.O_DIRECTORY)
        pid = os.fork()
        if pid == 0:
            os.close(status_r)
            _init(request, maps, progress, policy, budget, status_w)
        os.close(status_w)
        if maps.gate is not None:
            os.close(maps.gate)  # the init's copy is the one that waits
        files_on = policy.workdir if policy.workdir_in_memory else None
        memory = MemoryWatch(pid, budget.watch_bytes, lambda: kill_tree(pid, proc=proc), proc, files_on) \
            if budget else None
        _wait(pid, request, progress, report, memory)
        status = b""
        while chunk := os.read(status_r, 4096):
            status += chunk
        if memory is not None:
            memory.finish(report.maxrss_kib)
            report.memory_killed = memory.exceeded
            report.maxrss_kib = memory.peak_kib
        if not status.startswith(SETUP_DONE):
            report.setup_error = status.decode(errors="replace") or "the sandbox died during setup"
        elif status.startswith(SETUP_DONE + LEARNER_SETUP_FAILED):
            report.setup_error = status[len(SETUP_DONE + LEARNER_SETUP_FAILED):].decode(errors="replace")
        elif status != SETUP_DONE and report.timed_out is None and not report.memory_killed:
            # The learner's own wait status, as its init reaped it; the init's is only its messenger.
            report.set_wait_status(json.loads(status[len(SETUP_DONE):])["wait_status"])
    except BaseException:  # noqa: BLE001
        report.setup_error = traceback.format_exc()[-2000:]
    try:  # in this process, which exits next: the names and bytes met on the way never enter the zygote
        policy.mode.clean_up(policy, report, proc)
    except BaseException:  # noqa: BLE001 - a clean-up that failed is the judge's problem, said in the report
        report.error = "cleaning up after the run failed: " + traceback.format_exc()[-1000:]
    os.write(report_w, json.dumps(report.to_wire()).encode())
    os._exit(0)
