"""What the trusted side watches while learner code runs: the wall clock and, without a cgroup, memory.

Shared by the process backend's supervisor and the container backend, so the
per-case and total wall limits are decided by one piece of code.  Both watches
read only the watcher's own clock and the kernel's records (/proc); the
progress page the learner can scribble on only moves blame between its own
cases (the total limit does not depend on it).
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable

from judge.sandbox.boundary.contract import RunRequest, TimedOut
from judge.sandbox.boundary.progress import PHASE_RUNNING
from judge.sandbox.kernel.procfs import process_tree, status_kib

POLL_SECONDS = 0.02


class Watchdog:
    """Per-case and total wall limits of one run, measured from ``start_ns`` (monotonic)."""

    def __init__(self, request: RunRequest, start_ns: int) -> None:
        self.start_ns = start_ns
        self.total_ns = int(request.limits.wall_seconds * 1e9)
        self.case_ns = {c.case: int(c.wall_seconds * 1e9) for c in request.calls}

    def expired(self, now_ns: int, progress: tuple[int, int, int]) -> TimedOut | None:
        """"total", "case" or None, given the progress page's (case, case start, phase)."""
        case, case_start, phase = progress
        if now_ns - self.start_ns >= self.total_ns:
            return "total"
        if phase == PHASE_RUNNING and case in self.case_ns and now_ns - case_start > self.case_ns[case]:
            return "case"
        return None


class MemoryWatch:
    """The rlimits modes' memory limit: a learner process whose resident set passes ``limit_bytes``
    is killed, and the run's peak is the kernel's high-water mark (VmHWM) of each process.

    RLIMIT_AS stays in place as a backstop well above the limit, so a process that touches its
    memory crosses this watch's limit before the address-space limit refuses it anything.
    """

    def __init__(self, root_pid: int, limit_bytes: int, kill: Callable[[], object], proc: int | None = None,
                 files_on: str | None = None) -> None:
        """``files_on``: a folder on a memory-backed file system (tmpfs) the run may write: what the run adds to
        that file system counts as memory too (statvfs, a kernel record; Exercism's ``--tmpfs /tmp``)."""
        self.root_pid = root_pid
        self.proc = proc
        self.limit_kib = limit_bytes // 1024
        self.kill = kill
        self.peak_kib = 0
        self.exceeded = False
        self.files_on = files_on
        self.files_base = _used_kib(files_on) if files_on else 0
        self.files_peak_kib = 0

    def poll(self) -> bool:
        """Read every process's VmRSS/VmHWM once; kill and return True when the limit is passed."""
        for pid in process_tree(self.root_pid, self.proc):
            rss, hwm = status_kib(pid, self.proc)
            self.peak_kib = max(self.peak_kib, rss, hwm)
        if self.files_on:
            self.files_peak_kib = max(self.files_peak_kib, _used_kib(self.files_on) - self.files_base)
        if self.peak_kib + self.files_peak_kib > self.limit_kib and not self.exceeded:
            self.exceeded = True
            self.kill()
        return self.exceeded

    def finish(self, maxrss_kib: int) -> None:
        """Fold in wait4's ru_maxrss of the init (the largest of it and every descendant it reaped)."""
        self.peak_kib = max(self.peak_kib, maxrss_kib)
        if self.peak_kib + self.files_peak_kib > self.limit_kib:
            self.exceeded = True


def _used_kib(folder: str) -> int:
    """KiB in use on the file system holding ``folder`` (0 when it cannot be read)."""
    try:
        st = os.statvfs(folder)
    except OSError:
        return 0
    return (st.f_blocks - st.f_bfree) * st.f_frsize // 1024


def kill_tree(root: int, proc: int | None = None) -> int:
    """SIGKILL ``root`` and its descendants; how many were signalled."""
    pids = process_tree(root, proc)
    for pid in reversed(pids):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    return len(pids)
