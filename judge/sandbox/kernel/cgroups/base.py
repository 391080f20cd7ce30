"""What both versions share: membership and killing every process in a group."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Collection

from judge.sandbox.kernel.cgroups.files import describe, read_pids, write
from judge.sandbox.kernel.cgroups.interface import KILL_TIMEOUT, CgroupError


class _Base:
    """Shared kill loop; subclasses say where cgroup.procs is and who is a member."""

    version: int
    path_description: str
    _hier_path: str  #: path inside the hierarchy, as /proc/<pid>/cgroup shows it

    def _procs_files(self) -> list[str]:
        raise NotImplementedError

    def _membership_lines(self) -> tuple[str, ...]:
        """Substrings of /proc/<pid>/cgroup lines that prove membership."""
        raise NotImplementedError

    def _home_procs(self, home: str) -> list[str]:
        """The cgroup.procs files of the groups ``home`` (a /proc/<pid>/cgroup text) names, in this group's
        hierarchies."""
        raise NotImplementedError

    def return_home(self, home: str) -> None:
        """Move this process back into the groups it was in before it joined this one (``home``: the text of
        /proc/self/cgroup read then), so that the group can be removed by its own member: a one-shot zygote
        removes its group itself once the judge has let it go (:meth:`judge.sandbox.chain.zygote.Zygote.finish`)."""
        targets = self._home_procs(home)
        if not targets:
            raise CgroupError(f"cannot find where this process came from in {self.path_description}")
        for procs in targets:
            write(procs, os.getpid())

    @staticmethod
    def _home_lines(home: str) -> list[tuple[list[str], str]]:
        """(controllers, path) per line of a /proc/<pid>/cgroup text."""
        out = []
        for line in home.splitlines():
            parts = line.split(":", 2)
            if len(parts) == 3:
                out.append((parts[1].split(",") if parts[1] else [], parts[2]))
        return out

    def _members(self) -> set[int]:
        pids: set[int] = set()
        for f in self._procs_files():
            pids |= read_pids(f)
        return pids

    def _still_member(self, pid: int) -> bool:
        try:
            with open(f"/proc/{pid}/cgroup", encoding="utf-8", errors="replace") as f:
                lines = f.read().splitlines()
        except OSError:
            return False
        for line in lines:
            parts = line.split(":", 2)
            if len(parts) != 3:
                continue
            path = parts[2]
            if path.endswith(" (deleted)"):
                path = path[: -len(" (deleted)")]
            key = f"{parts[1]}:{path}"
            if key in self._membership_lines():
                return True
        return False

    def _sigkill(self, pid: int) -> bool:
        """SIGKILL ``pid`` only if it is (still) in this group.

        A pid read from cgroup.procs may exit and be reused by an unrelated
        process before we signal it.  Pinning it with a pidfd first and then
        checking membership closes that race on kernels >= 5.3; older kernels
        fall back to a plain kill after the same membership check.
        """
        pidfd = -1
        try:
            pidfd = os.pidfd_open(pid)
        except ProcessLookupError:
            return False
        except (OSError, AttributeError):
            pidfd = -1
        try:
            if not self._still_member(pid):
                return False
            try:
                if pidfd >= 0:
                    signal.pidfd_send_signal(pidfd, signal.SIGKILL)
                else:
                    os.kill(pid, signal.SIGKILL)
                return True
            except ProcessLookupError:
                return False
            except OSError as exc:
                raise CgroupError(
                    f"cannot SIGKILL pid {pid} in {self.path_description} ({describe(exc)})", exc.errno
                ) from exc
        finally:
            if pidfd >= 0:
                os.close(pidfd)

    def _bulk_kill(self) -> bool:
        """Kill the whole group in one kernel operation if possible (v2 only)."""
        return False

    def kill_all(self, keep: Collection[int] = (), timeout: float = KILL_TIMEOUT) -> int:
        """SIGKILL every process in the group except ``keep`` and ourselves.

        Loops because a process may fork between our read of cgroup.procs and
        the kill; pids.max bounds that race.  The calling process is always
        kept, since killing ourselves would take the judge down.  Returns the
        number of distinct processes signalled; raises CgroupError if some are
        still there after ``timeout`` seconds (e.g. stuck in D state), because
        running the next submission next to leftovers would skew its verdict.
        """
        keep_set = set(keep) | {os.getpid()}
        killed: set[int] = set()
        deadline = time.monotonic() + timeout
        delay = 0.001
        while True:
            victims = self._members() - keep_set
            if not victims:
                return len(killed)
            if not (self._members() & keep_set) and self._bulk_kill():
                killed |= victims
            else:
                for pid in sorted(victims):
                    if self._sigkill(pid):
                        killed.add(pid)
            if time.monotonic() >= deadline:
                left = sorted(self._members() - keep_set)
                if not left:
                    return len(killed)
                raise CgroupError(
                    f"processes {left} in {self.path_description} survived SIGKILL for {timeout:.1f}s"
                )
            time.sleep(delay)
            delay = min(delay * 2, 0.05)
