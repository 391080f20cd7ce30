"""The one small interface both cgroup versions implement, and its records and errors."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

#: Name of the judge's own subtree under each hierarchy root.
JUDGE_DIR = "judge"
KILL_TIMEOUT = 2.0  # seconds kill_all keeps trying before it gives up


class CgroupError(RuntimeError):
    """A cgroup file operation failed; the message names the file and errno.

    ``errno`` is kept (``None`` when the failure was not an OSError) so callers
    can tell e.g. ESRCH (process already gone) from EBUSY.
    """

    def __init__(self, message: str, err: int | None = None) -> None:
        super().__init__(message)
        self.errno = err


class CgroupUnavailable(CgroupError):
    """Memory and pids cannot both be limited here; the message says why.

    Raised by :func:`create_worker_cgroup`; the judge refuses to run untrusted
    code without these two limits, so this is fatal for a worker, and the text
    is shown verbatim by ``judge doctor``.
    """

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class CgroupSnapshot:
    """Kernel counters of one worker group at one instant.

    All counters are cumulative since the group was created (or since the last
    reset for ``memory_peak``) so that a verdict is the difference between the
    snapshot taken before a child and the one taken after it.
    """

    oom_kills: int  #: cumulative OOM kills in this group
    pids_refused: int  #: cumulative fork refusals at pids.max
    cpu_ns: int  #: cumulative CPU time of all tasks, ns
    memory_peak: int | None  #: bytes, peak since last reset_peak(); None if unknown (v2 before kernel 5.19)
    memory_current: int  #: bytes now


@dataclass(frozen=True)
class CgroupSupport:
    """What this machine offers, for choosing an implementation and for doctor."""

    version: int | None  #: 1, 2, or None if unusable
    controllers: tuple[str, ...]  #: usable ones among memory, pids, cpu, cpuacct
    writable: bool  #: can we create groups (root, not read-only)
    reason: str  #: human sentence why it is or isn't usable


@runtime_checkable
class WorkerCgroup(Protocol):
    """One worker's group; the zygote lives in it, submissions inherit it."""

    version: int
    path_description: str

    def add_process(self, pid: int) -> None:
        """Move ``pid`` (the whole thread group) into the group."""

    def set_limits(self, memory_bytes: int, max_pids: int) -> None:
        """Limit memory (RAM, no swap) and the number of tasks in the group."""

    def snapshot(self) -> CgroupSnapshot:
        """Read the kernel's counters."""

    def reset_peak(self) -> None:
        """Restart the peak-memory watermark, between runs.

        v1 rewinds it to the current usage; v2 moves the processes into a fresh
        leaf group (usage and peak restart near 0), which may take ~10 ms.
        """

    def kill_all(self, keep: Collection[int] = (), timeout: float = KILL_TIMEOUT) -> int:
        """SIGKILL everything but ``keep``; return how many processes were killed."""

    def return_home(self, home: str) -> None:
        """Move the calling process back where it was before joining (``home``: its /proc/self/cgroup then)."""

    def remove(self) -> None:
        """Kill everything and delete the group's directories (the caller must not be in the group)."""
