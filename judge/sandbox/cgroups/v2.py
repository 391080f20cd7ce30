"""cgroup v2: one unified hierarchy; judge/ delegates controllers to per-worker leaves."""

from __future__ import annotations

import errno
import os
from typing import Iterable

from judge.sandbox.cgroups.base import _Base
from judge.sandbox.cgroups.files import mkdir, read, read_int, read_key, rmdir, validate_name, write
from judge.sandbox.cgroups.interface import JUDGE_DIR, CgroupError, CgroupSnapshot, CgroupUnavailable
from judge.sandbox.cgroups.mounts import _Mount


class CgroupV2(_Base):
    """A worker group ``<mount>/judge/<name>`` on the unified hierarchy."""

    version = 2

    def __init__(self, name: str, mount: _Mount) -> None:
        validate_name(name)
        self.name = name
        self._root = mount.mount_point
        self._parent = os.path.join(mount.mount_point, JUDGE_DIR)
        self._dir = os.path.join(self._parent, name)
        self._hier_path = f"{mount.root.rstrip('/')}/{JUDGE_DIR}/{name}"
        self.path_description = f"v2 {self._hier_path}"
        # memory.peak resets are per open file (kernel >= 6.12): the fd that was
        # written to must be the one read from, so we keep it open.
        self._peak_fd: int | None = None
        self._peak_unknown = False

    # -- creation ----------------------------------------------------------
    def _enable(self, cgroup_dir: str, wanted: Iterable[str], required: Iterable[str]) -> None:
        """Enable controllers for ``cgroup_dir``'s children, one at a time.

        One write per controller so an optional one (cpu) that cannot be
        enabled doesn't prevent the required ones.
        """
        path = os.path.join(cgroup_dir, "cgroup.subtree_control")
        have = set(read(path).split())
        available = set(read(os.path.join(cgroup_dir, "cgroup.controllers")).split())
        for ctrl in wanted:
            if ctrl in have:
                continue
            if ctrl not in available:
                if ctrl in required:
                    raise CgroupUnavailable(f"controller {ctrl} is not offered in {cgroup_dir}/cgroup.controllers")
                continue
            try:
                write(path, f"+{ctrl}")
            except CgroupError as exc:
                if ctrl not in required:
                    continue
                hint = ""
                if exc.errno == errno.EBUSY:
                    hint = (
                        "; the kernel refuses because that cgroup holds processes itself "
                        "('no internal processes' rule) — on a namespaced/containerised root, "
                        "move those processes into a leaf group first"
                    )
                raise CgroupUnavailable(f"{exc}{hint}") from exc

    def _create(self) -> bool:
        """Delegate memory/pids/cpu from the mount root to judge/ and create the leaf."""
        wanted = ("memory", "pids", "cpu")
        required = ("memory", "pids")
        self._enable(self._root, wanted, required)
        mkdir(self._parent)
        self._enable(self._parent, wanted, required)
        fresh = mkdir(self._dir)
        ctrls = set(read(os.path.join(self._dir, "cgroup.controllers")).split())
        if not {"memory", "pids"} <= ctrls:
            raise CgroupUnavailable(f"{self._dir}/cgroup.controllers lacks memory or pids: {' '.join(sorted(ctrls))}")
        return fresh

    def _procs_files(self) -> list[str]:
        return [os.path.join(self._dir, "cgroup.procs")]

    def _membership_lines(self) -> tuple[str, ...]:
        return (f":{self._hier_path}",)

    def _bulk_kill(self) -> bool:
        """cgroup.kill (kernel >= 5.14) kills the group atomically, forks included."""
        path = os.path.join(self._dir, "cgroup.kill")
        if not os.path.exists(path):
            return False
        write(path, 1)
        return True

    # -- interface ---------------------------------------------------------
    def add_process(self, pid: int) -> None:
        """Write ``pid`` to cgroup.procs (moves all its threads)."""
        write(os.path.join(self._dir, "cgroup.procs"), pid)

    def set_limits(self, memory_bytes: int, max_pids: int) -> None:
        """memory.max, memory.swap.max=0 (no swapping around the limit), pids.max.

        memory.oom.group is deliberately left 0: the zygote shares this group
        and must survive a submission's OOM kill.
        """
        if memory_bytes <= 0 or max_pids <= 0:
            raise ValueError("memory_bytes and max_pids must be positive")
        write(os.path.join(self._dir, "memory.max"), memory_bytes)
        swap = os.path.join(self._dir, "memory.swap.max")
        if os.path.exists(swap):  # absent without swap accounting
            write(swap, 0)
        write(os.path.join(self._dir, "pids.max"), max_pids)

    def _read_peak(self) -> int | None:
        if self._peak_unknown:
            return None
        if self._peak_fd is not None:
            try:
                return int(os.pread(self._peak_fd, 64, 0).decode().strip())
            except (OSError, ValueError) as exc:
                raise CgroupError(f"cannot read {self._dir}/memory.peak ({exc})") from exc
        path = os.path.join(self._dir, "memory.peak")
        if not os.path.exists(path):  # kernel < 5.19
            return None
        return read_int(path)

    def snapshot(self) -> CgroupSnapshot:
        """oom_kill from memory.events, max from pids.events, usage_usec from cpu.stat.

        cpu.stat exists in every non-root v2 group even without the cpu
        controller, so CPU time is always available.
        """
        d = self._dir
        return CgroupSnapshot(
            oom_kills=read_key(os.path.join(d, "memory.events"), "oom_kill"),
            pids_refused=read_key(os.path.join(d, "pids.events"), "max"),
            cpu_ns=read_key(os.path.join(d, "cpu.stat"), "usage_usec") * 1000,
            memory_peak=self._read_peak(),
            memory_current=read_int(os.path.join(d, "memory.current")),
        )

    def reset_peak(self) -> None:
        """Reset memory.peak through a kept-open fd (kernel >= 6.12).

        On older kernels memory.peak is read-only (or absent) and a peak since
        the last reset cannot be known, so snapshots report None from then on
        rather than a misleading since-creation value.
        """
        path = os.path.join(self._dir, "memory.peak")
        if self._peak_fd is None:
            if not os.path.exists(path):
                self._peak_unknown = True
                return
            try:
                self._peak_fd = os.open(path, os.O_RDWR | os.O_CLOEXEC)
            except OSError:
                self._peak_unknown = True
                return
        try:
            os.write(self._peak_fd, b"reset\n")
            self._peak_unknown = False
        except OSError:
            self._close_peak()
            self._peak_unknown = True

    def _close_peak(self) -> None:
        if self._peak_fd is not None:
            try:
                os.close(self._peak_fd)
            except OSError:
                pass
            self._peak_fd = None

    def remove(self) -> None:
        """Kill everything, rmdir the leaf; judge/ stays for other workers."""
        if os.getpid() in self._members():
            raise CgroupError(
                f"cannot remove {self.path_description}: the calling process (pid {os.getpid()}) is in it"
            )
        self.kill_all()
        self._close_peak()
        rmdir(self._dir)

    def __del__(self) -> None:
        self._close_peak()
