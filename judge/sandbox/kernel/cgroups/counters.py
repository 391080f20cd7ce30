"""The one reader of a group's kernel counters (OOM kills, refused forks, CPU, memory), both backends'.

The process backend reads its worker's folders (v1: memory, pids and cpuacct
hierarchies; v2: the current leaf); the container backend reads the group the
Docker engine puts a run's container under (:class:`EngineGroup`).  The files
and their meaning are the same, so one function per cgroup version reads them
into a :class:`~judge.sandbox.kernel.cgroups.interface.CgroupSnapshot`.
"""

from __future__ import annotations

import os

from judge.sandbox.kernel.cgroups.files import read_int, read_key, rmdir
from judge.sandbox.kernel.cgroups.interface import CgroupError, CgroupSnapshot
from judge.sandbox.kernel.cgroups.mounts import _best_v2_mount, _cgroup_mounts, _v1_controller_mounts


def read_v1(memory: str, pids: str, cpuacct: str | None) -> CgroupSnapshot:
    """Counters of one v1 group, given its folder in each hierarchy (no cpuacct: CPU reads 0).

    OOM kills come from memory.oom_control's ``oom_kill`` (failcnt stays 0 on OOM kills)."""
    return CgroupSnapshot(
        oom_kills=read_key(os.path.join(memory, "memory.oom_control"), "oom_kill"),
        pids_refused=read_key(os.path.join(pids, "pids.events"), "max"),
        cpu_ns=read_int(os.path.join(cpuacct, "cpuacct.usage")) if cpuacct else 0,
        memory_peak=read_int(os.path.join(memory, "memory.max_usage_in_bytes")),
        memory_current=read_int(os.path.join(memory, "memory.usage_in_bytes")),
    )


def read_v2(group: str) -> CgroupSnapshot:
    """Counters of one v2 group: memory.events oom_kill, pids.events max, cpu.stat usage_usec, memory.peak.

    cpu.stat exists in every non-root v2 group even without the cpu controller, so
    CPU time is always there; memory.peak needs kernel 5.19 (None before)."""
    peak = os.path.join(group, "memory.peak")
    return CgroupSnapshot(
        oom_kills=read_key(os.path.join(group, "memory.events"), "oom_kill"),
        pids_refused=read_key(os.path.join(group, "pids.events"), "max"),
        cpu_ns=read_key(os.path.join(group, "cpu.stat"), "usage_usec") * 1000,
        memory_peak=read_int(peak) if os.path.exists(peak) else None,
        memory_current=read_int(os.path.join(group, "memory.current")),
    )


class EngineGroup:
    """A group someone else creates and fills -- the Docker engine's parent group of a container --
    found by its path inside the hierarchy (``/numpy-judge-.../run-3``, as ``--cgroup-parent`` says).

    The container backend gives every run a fresh one, so the counters it reads after the run
    are that run's alone: no baseline to subtract and no peak to reset (memory.peak cannot be
    reset before kernel 6.12, the same reason the process backend's v2 leaf is replaced per run).
    """

    def __init__(self, path: str, version: int) -> None:
        self.path = path.strip("/")
        self.version = version
        mounts = _cgroup_mounts()
        if version == 2:
            m2, _ = _best_v2_mount(mounts)
            self._roots = [m2.mount_point] if m2 is not None else []
            self._v1: dict[str, str] = {}
        else:
            self._v1 = {c: m.mount_point for c, m in _v1_controller_mounts(mounts).items()}
            # The engine creates the group in every hierarchy mounted at its root, not only in ours.
            self._roots = list(dict.fromkeys(m.mount_point for m in mounts if m.root == "/"))

    def _in(self, root: str) -> str:
        return os.path.join(root, self.path)

    def snapshot(self) -> CgroupSnapshot | None:
        """The group's counters; None when it does not exist (yet) or a counter cannot be read."""
        try:
            if self.version == 2:
                return read_v2(self._in(self._roots[0])) if self._roots else None
            if "memory" not in self._v1 or "pids" not in self._v1:
                return None
            cpuacct = self._v1.get("cpuacct")
            return read_v1(self._in(self._v1["memory"]), self._in(self._v1["pids"]),
                           self._in(cpuacct) if cpuacct else None)
        except CgroupError:
            return None

    def remove(self) -> None:
        """rmdir the group (its child groups first) in every hierarchy; quiet when busy or gone,
        since the engine removes the containers' own groups and a later remove can retry."""
        for root in self._roots:
            top = self._in(root)
            if not os.path.isdir(top):
                continue
            folders = [dirpath for dirpath, _, _ in os.walk(top)]
            for folder in reversed(folders):  # deepest first
                try:
                    rmdir(folder, timeout=0.5)
                except CgroupError:
                    pass
