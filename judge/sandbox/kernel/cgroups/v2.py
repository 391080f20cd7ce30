"""cgroup v2: one unified hierarchy; a worker is an inner group whose current leaf holds the zygote.

Layout::

    <mount>/judge/                 delegates memory, pids (and cpu if offered)
    <mount>/judge/<name>/          the worker: delegates the same controllers to its leaves
    <mount>/judge/<name>/run-<k>   the leaf the zygote and its current run live in

Why a leaf that changes: the per-run peak memory comes from ``memory.peak``,
which counts from the group's creation and can only be reset from kernel 6.12
on (Debian 12, Ubuntu 22.04/24.04 and RHEL 9 ship older ones).  So
:meth:`CgroupV2.reset_peak` moves the group's processes into a fresh leaf and
removes the old one: v2 never moves charges with a process, so the new leaf's
``memory.peak`` counts only what is charged after the move.  The zygote calls it
after it has replied, when a move's 7-13 ms (taken after an idle gap, for the
kernel's global cgroup_threadgroup_rwsem) delays no verdict; one code path for
every kernel, no version check.

Limits and counters are the leaf's: ``pids.events`` ``max`` is counted in the
forking task's own group on the kernels we target, and a verdict compares two
snapshots of one leaf (the move only happens between runs).
"""

from __future__ import annotations

import errno
import os
from collections.abc import Iterable

from judge.sandbox.kernel.cgroups.base import _Base
from judge.sandbox.kernel.cgroups.counters import read_v2
from judge.sandbox.kernel.cgroups.files import mkdir, read, read_key, read_pids, rmdir, validate_name, write
from judge.sandbox.kernel.cgroups.interface import JUDGE_DIR, CgroupError, CgroupSnapshot, CgroupUnavailable
from judge.sandbox.kernel.cgroups.mounts import _Mount

_CONTROLLERS = ("memory", "pids", "cpu")
_REQUIRED = ("memory", "pids")
_LEAF_PREFIX = "run-"


class CgroupV2(_Base):
    """A worker group ``<mount>/judge/<name>`` on the unified hierarchy; processes live in its leaf."""

    version = 2

    def __init__(self, name: str, mount: _Mount, delegated: bool = False) -> None:
        """``mount``: the hierarchy's root, or (``delegated``) a group delegated to this user
        that stands in for it (:mod:`judge.sandbox.kernel.cgroups.delegation`)."""
        validate_name(name)
        self.name = name
        self._root = mount.mount_point
        self._parent = os.path.join(mount.mount_point, JUDGE_DIR)
        self._dir = os.path.join(self._parent, name)
        self._hier_path = f"{mount.root.rstrip('/')}/{JUDGE_DIR}/{name}"
        self._mount_root = mount.root.rstrip("/")  #: the mount's root inside the hierarchy
        self.path_description = f"v2{' delegated' if delegated else ''} {self._hier_path}"
        self._serial = 0
        self._leaf = os.path.join(self._dir, f"{_LEAF_PREFIX}0")

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
        """Delegate the controllers down to judge/<name> and create its first leaf.

        A group left by a crashed judge (either layout: processes in judge/<name>
        itself, or in leaves) is emptied with cgroup.kill and its leaves removed,
        because judge/<name> can only delegate once it holds no process.
        """
        self._enable(self._root, _CONTROLLERS, _REQUIRED)
        mkdir(self._parent)
        self._enable(self._parent, _CONTROLLERS, _REQUIRED)
        fresh = mkdir(self._dir)
        if not fresh:
            self.kill_all()
            for leaf in self._leaves():
                rmdir(leaf)
            for limit in ("memory.max", "pids.max"):  # set on the group itself by the older layout
                if os.path.exists(os.path.join(self._dir, limit)):
                    write(os.path.join(self._dir, limit), "max")
        self._enable(self._dir, _CONTROLLERS, _REQUIRED)
        self._serial = 0
        self._leaf = os.path.join(self._dir, f"{_LEAF_PREFIX}0")
        mkdir(self._leaf)
        ctrls = set(read(os.path.join(self._leaf, "cgroup.controllers")).split())
        if not set(_REQUIRED) <= ctrls:
            raise CgroupUnavailable(f"{self._leaf}/cgroup.controllers lacks memory or pids: {' '.join(sorted(ctrls))}")
        return fresh

    def _leaves(self) -> list[str]:
        try:
            names = os.listdir(self._dir)
        except FileNotFoundError:
            return []
        except OSError as exc:
            raise CgroupError(f"cannot list {self._dir} ({exc})", exc.errno) from exc
        return [os.path.join(self._dir, n) for n in sorted(names)
                if n.startswith(_LEAF_PREFIX) and os.path.isdir(os.path.join(self._dir, n))]

    def _procs_files(self) -> list[str]:
        return [os.path.join(d, "cgroup.procs") for d in [self._dir, *self._leaves()]]

    def _home_procs(self, home: str) -> list[str]:
        root = self._mount_root
        return [os.path.join(self._root, path[len(root):].lstrip("/"), "cgroup.procs")
                for controllers, path in self._home_lines(home)
                if not controllers and (path == root or path.startswith(root + "/"))][:1]

    def _membership_lines(self) -> tuple[str, ...]:
        leaves = [f":{self._hier_path}/{os.path.basename(d)}" for d in self._leaves()]
        return (f":{self._hier_path}", *leaves)

    def _bulk_kill(self) -> bool:
        """cgroup.kill (kernel >= 5.14) kills the whole worker, every leaf, forks included."""
        path = os.path.join(self._dir, "cgroup.kill")
        if not os.path.exists(path):
            return False
        write(path, 1)
        return True

    # -- interface ---------------------------------------------------------
    def add_process(self, pid: int) -> None:
        """Write ``pid`` to the current leaf's cgroup.procs (moves all its threads)."""
        write(os.path.join(self._leaf, "cgroup.procs"), pid)

    def set_limits(self, memory_bytes: int, max_pids: int) -> None:
        """memory.max, memory.swap.max=0 (no swapping around the limit), pids.max, on the current leaf.

        memory.oom.group is deliberately left 0: the zygote shares the leaf
        and must survive a submission's OOM kill.
        """
        if memory_bytes <= 0 or max_pids <= 0:
            raise ValueError("memory_bytes and max_pids must be positive")
        write(os.path.join(self._leaf, "memory.max"), memory_bytes)
        swap = os.path.join(self._leaf, "memory.swap.max")
        if os.path.exists(swap):  # absent without swap accounting
            write(swap, 0)
        write(os.path.join(self._leaf, "pids.max"), max_pids)

    def snapshot(self) -> CgroupSnapshot:
        """The current leaf's counters (a verdict compares two snapshots of one leaf)."""
        return read_v2(self._leaf)

    def reset_peak(self) -> None:
        """Move the group's processes into a fresh leaf and remove the old one.

        The fresh leaf starts with memory.peak 0; what the processes had
        charged stays with the old leaf, which the kernel frees once those
        pages are (it lingers as a "dying" group until then).  Limits are not
        carried over: the caller sets them before each run.
        """
        old = self._leaf
        self._serial += 1
        new = os.path.join(self._dir, f"{_LEAF_PREFIX}{self._serial}")
        mkdir(new)
        procs = os.path.join(new, "cgroup.procs")
        for _ in range(100):  # a process may fork while we move the others; pids.max bounds it
            pids = read_pids(os.path.join(old, "cgroup.procs"))
            if not pids:
                break
            for pid in sorted(pids):
                try:
                    write(procs, pid)
                except CgroupError as exc:
                    if exc.errno != errno.ESRCH:  # ESRCH: it exited meanwhile
                        raise
        self._leaf = new
        rmdir(old)

    def remove(self) -> None:
        """Kill everything, rmdir the leaves and the worker; judge/ stays for other workers."""
        if os.getpid() in self._members():
            raise CgroupError(
                f"cannot remove {self.path_description}: the calling process (pid {os.getpid()}) is in it"
            )
        self.kill_all()
        for leaf in self._leaves():
            rmdir(leaf)
        rmdir(self._dir)

    def dying_descendants(self) -> int:
        """Removed groups under this worker the kernel still keeps for pages charged to them (cgroup.stat)."""
        return read_key(os.path.join(self._dir, "cgroup.stat"), "nr_dying_descendants")
