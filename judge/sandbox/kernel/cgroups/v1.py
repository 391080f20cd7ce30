"""cgroup v1: one directory per controller hierarchy (memory, pids, cpuacct)."""

from __future__ import annotations

import os

from judge.sandbox.kernel.cgroups.base import _Base
from judge.sandbox.kernel.cgroups.counters import read_v1
from judge.sandbox.kernel.cgroups.files import mkdir, read_int, rmdir, validate_name, write
from judge.sandbox.kernel.cgroups.interface import JUDGE_DIR, CgroupError, CgroupSnapshot
from judge.sandbox.kernel.cgroups.mounts import _Mount


class CgroupV1(_Base):
    """A worker group made of one directory per v1 hierarchy.

    memory and pids are required, cpuacct is used when mounted (it may be
    co-mounted with cpu, in which case it is the same directory).
    """

    version = 1

    def __init__(self, name: str, mounts: dict[str, _Mount]) -> None:
        validate_name(name)
        self.name = name
        rel = f"{JUDGE_DIR}/{name}"
        self._mem = os.path.join(mounts["memory"].mount_point, rel)
        self._pids = os.path.join(mounts["pids"].mount_point, rel)
        self._cpuacct = os.path.join(mounts["cpuacct"].mount_point, rel) if "cpuacct" in mounts else None
        self._hier: dict[str, str] = {}
        for ctrl in ("memory", "pids", "cpuacct"):
            if ctrl in mounts:
                root = mounts[ctrl].root.rstrip("/")
                self._hier[ctrl] = f"{root}/{rel}"
        self._hier_path = self._hier["memory"]
        # The hierarchy's name in /proc/<pid>/cgroup is the comma list of its
        # controllers ("cpu,cpuacct"), so membership keys are built from that.
        self._keys = tuple(
            f"{','.join(o for o in mounts[c].super_options if o in _V1_SUBSYS)}:{self._hier[c]}" for c in self._hier
        )
        self.path_description = "v1 " + " ".join(f"{c}:{p}" for c, p in self._hier.items())
        #: per controller: where its hierarchy is mounted, and the mount's root inside the hierarchy
        self._mounts = {c: (mounts[c].mount_point, mounts[c].root.rstrip("/")) for c in self._hier}
        self._has_memsw = False

    # -- creation ----------------------------------------------------------
    def _dirs(self) -> list[str]:
        dirs = [self._mem, self._pids] + ([self._cpuacct] if self._cpuacct else [])
        # cpu,cpuacct co-mounted with memory would repeat a path; keep unique.
        return list(dict.fromkeys(dirs))

    def _create(self) -> bool:
        """mkdir judge/ and judge/<name> in every hierarchy; True if all were new."""
        fresh = True
        for d in self._dirs():
            mkdir(os.path.dirname(d))
            fresh = mkdir(d) and fresh
        self._has_memsw = os.path.exists(os.path.join(self._mem, "memory.memsw.limit_in_bytes"))
        return fresh

    def _procs_files(self) -> list[str]:
        return [os.path.join(d, "cgroup.procs") for d in self._dirs()]

    def _membership_lines(self) -> tuple[str, ...]:
        return self._keys

    def _home_procs(self, home: str) -> list[str]:
        targets = []
        for controllers, path in self._home_lines(home):
            for c in controllers:
                if c in self._mounts:
                    mount_point, root = self._mounts[c]
                    if path == root or path.startswith(root + "/"):
                        targets.append(os.path.join(mount_point, path[len(root):].lstrip("/"), "cgroup.procs"))
        return list(dict.fromkeys(targets))

    # -- interface ---------------------------------------------------------
    def add_process(self, pid: int) -> None:
        """Write ``pid`` to cgroup.procs of every hierarchy (memory first).

        Memory is joined first so that nothing the process allocates after
        this call escapes the limit.  v1 does not move already-charged pages
        (move_charge_at_immigrate stays 0), which is what we want: the
        zygote's own imports stay charged to where it came from.
        """
        for d in self._dirs():
            write(os.path.join(d, "cgroup.procs"), pid)

    def set_limits(self, memory_bytes: int, max_pids: int) -> None:
        """Set memory (RAM+swap equal, so no swapping around the limit) and pids.

        The kernel requires memsw >= mem at every moment, so when raising we
        write memsw first and when lowering mem first.
        """
        if memory_bytes <= 0 or max_pids <= 0:
            raise ValueError("memory_bytes and max_pids must be positive")
        mem = os.path.join(self._mem, "memory.limit_in_bytes")
        memsw = os.path.join(self._mem, "memory.memsw.limit_in_bytes")
        if self._has_memsw:
            current = read_int(mem)
            if current < 0 or memory_bytes >= current:
                write(memsw, memory_bytes)
                write(mem, memory_bytes)
            else:
                write(mem, memory_bytes)
                write(memsw, memory_bytes)
        else:
            write(mem, memory_bytes)
        write(os.path.join(self._pids, "pids.max"), max_pids)

    def snapshot(self) -> CgroupSnapshot:
        return read_v1(self._mem, self._pids, self._cpuacct)

    def reset_peak(self) -> None:
        """Writing 0 to max_usage_in_bytes restarts the watermark at current usage."""
        write(os.path.join(self._mem, "memory.max_usage_in_bytes"), 0)

    def remove(self) -> None:
        """Kill everything left and rmdir the group in every hierarchy.

        judge/ itself is left in place: other workers share it.
        """
        if os.getpid() in self._members():
            raise CgroupError(
                f"cannot remove {self.path_description}: the calling process (pid {os.getpid()}) is in it"
            )
        self.kill_all()
        for d in self._dirs():
            rmdir(d)


_V1_SUBSYS = frozenset(
    ("cpuset", "cpu", "cpuacct", "blkio", "memory", "devices", "freezer", "net_cls",
     "perf_event", "net_prio", "hugetlb", "pids", "rdma", "misc")
)
