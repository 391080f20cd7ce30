"""Per-worker control groups: limits and kernel-side accounting for submissions.

Why this module exists
----------------------
The judge's verdicts ("memory limit exceeded", "too many processes", CPU time)
must come from records the kernel keeps, not from what a learner's process says
about itself: a submission can catch signals, fork, or die in odd ways, but it
cannot edit its cgroup's counters.  A long-lived zygote moves itself *once* into
a per-worker group (joining is slow after idle gaps; children inherit the group
at fork), then before every child it calls :meth:`WorkerCgroup.snapshot` and
:meth:`WorkerCgroup.set_limits`, after the child is gone
:meth:`WorkerCgroup.kill_all` (keeping the zygote) and another
:meth:`~WorkerCgroup.snapshot`, and once the reply is sent
:meth:`WorkerCgroup.reset_peak` for the next run.  Counters are cumulative;
callers compare two snapshots.

Two kernels interfaces are supported behind one small interface:

* cgroup v1 (controllers mounted separately, e.g. ``/sys/fs/cgroup/memory``):
  the group is ``<mount>/judge/<name>`` in the memory, pids and (if present)
  cpuacct hierarchies.
* cgroup v2 (a unified ``cgroup2`` mount with the controllers in it): the group
  is ``<mount>/judge/<name>``, whose processes live in one leaf
  ``judge/<name>/run-<k>`` that :meth:`~WorkerCgroup.reset_peak` replaces by a
  fresh one (memory.peak cannot be reset before kernel 6.12); ``judge/`` and
  ``judge/<name>`` only delegate controllers, because a v2 group with children
  may not hold processes ("no internal processes").

Only the standard library is used, and files are written with plain
``open``/``write`` so the kernel's errno reaches us unaltered; every ``OSError``
is re-raised as :class:`CgroupError` naming the file, because "Device or
resource busy" alone is useless in a judge log.
"""

from __future__ import annotations

import os
import time

from judge.sandbox.kernel.cgroups.files import validate_name
from judge.sandbox.kernel.cgroups.interface import (
    JUDGE_DIR,
    CgroupError,
    CgroupSnapshot,
    CgroupSupport,
    CgroupUnavailable,
    WorkerCgroup,
)
from judge.sandbox.kernel.cgroups.mounts import _best_v2_mount, _cgroup_mounts, _Mount, _v1_controller_mounts, detect
from judge.sandbox.kernel.cgroups.v1 import CgroupV1
from judge.sandbox.kernel.cgroups.v2 import CgroupV2

__all__ = [
    "CgroupError",
    "CgroupUnavailable",
    "CgroupSnapshot",
    "CgroupSupport",
    "WorkerCgroup",
    "CgroupV1",
    "CgroupV2",
    "detect",
    "create_worker_cgroup",
    "remove_worker_cgroup",
    "prune_stale_worker_cgroups",
    "JUDGE_DIR",
]


def create_worker_cgroup(name: str, under: _Mount | None = None) -> WorkerCgroup:
    """Create (or take over) the worker group ``judge/<name>``.

    ``under``: a delegated cgroup v2 group (:meth:`delegation.Delegation.mount`)
    to make it in instead of the hierarchy's root (mode rootless).
    A group left by a crashed run is reused after killing whatever is still in
    it (never the caller), so restarting the judge needs no manual cleanup;
    the zygote resets its peak after joining.  Raises :class:`CgroupUnavailable` when memory
    and pids cannot both be limited.
    """
    validate_name(name)
    group: CgroupV1 | CgroupV2
    if under is not None:
        group = CgroupV2(name, under, delegated=True)
    else:
        support = detect()
        if support.version is None:
            raise CgroupUnavailable(support.reason)
        if not support.writable:
            raise CgroupUnavailable(support.reason)
        mounts = _cgroup_mounts()
        if support.version == 1:
            group = CgroupV1(name, _v1_controller_mounts(mounts))
        else:
            m2, _ = _best_v2_mount(mounts)
            assert m2 is not None
            group = CgroupV2(name, m2)
    try:
        fresh = group._create()
    except CgroupUnavailable:
        raise
    except CgroupError as exc:
        raise CgroupUnavailable(f"cannot set up cgroup judge/{name}: {exc}") from exc
    if not fresh:
        group.kill_all()
    return group


def remove_worker_cgroup(name: str, under: _Mount | None = None) -> None:
    """Remove ``judge/<name>`` from outside, once its zygote has exited; quiet when already gone."""
    try:
        create_worker_cgroup(name, under).remove()
    except CgroupError:
        pass


STALE_AFTER_SECONDS = 60.0


def prune_stale_worker_cgroups(min_age: float = STALE_AFTER_SECONDS, under: _Mount | None = None) -> int:
    """Remove empty worker groups left by judges that died without cleaning up (SIGKILL, OOM).

    A group is removed only when it holds no process and is older than
    ``min_age`` seconds, so a group another judge has just created, before its
    zygote moved in, is never touched.  Returns how many groups were removed.
    """
    mounts = _cgroup_mounts()
    if under is not None:
        roots = {under.mount_point}
    elif (support := detect()).version is None or not support.writable:
        return 0
    elif support.version == 1:
        roots = {m.mount_point for m in _v1_controller_mounts(mounts).values()}
    else:
        m2, _ = _best_v2_mount(mounts)
        roots = {m2.mount_point} if m2 is not None else set()
    removed = 0
    now = time.time()
    for root in roots:
        parent = os.path.join(root, JUDGE_DIR)
        try:
            names = os.listdir(parent)
        except OSError:
            continue
        for name in names:
            group = os.path.join(parent, name)
            try:
                if not os.path.isdir(group) or now - os.stat(group).st_mtime < min_age:
                    continue
                removed += _remove_if_idle(group)
            except OSError:
                continue  # busy, raced with its owner, or already gone
    return removed


def _remove_if_idle(group: str) -> bool:
    """rmdir ``group`` and its child groups (v2 leaves), children first, if none holds a process."""
    dirs = [group] + [os.path.join(group, n) for n in sorted(os.listdir(group))
                      if os.path.isdir(os.path.join(group, n))]
    for d in dirs:
        with open(os.path.join(d, "cgroup.procs"), encoding="ascii") as f:
            if f.read().strip():
                return False
    for d in reversed(dirs):
        os.rmdir(d)
    return True


def join_worker_cgroup(name: str) -> tuple[WorkerCgroup, str]:
    """Create the worker group ``name``, move this process into it, restart its peak: the group (a
    :class:`judge.sandbox.kernel.cgroups.interface.WorkerCgroup`) and where this process was before (the text of
    /proc/self/cgroup), for :meth:`~judge.sandbox.kernel.cgroups.interface.WorkerCgroup.return_home`."""
    with open("/proc/self/cgroup", encoding="utf-8", errors="replace") as f:
        home = f.read()
    prune_stale_worker_cgroups()  # groups of judges that were killed before they could clean up
    group = create_worker_cgroup(name)
    group.add_process(os.getpid())  # cgroup.procs: the whole process, every thread of it
    group.reset_peak()  # a reused v1 group keeps its old watermark; right after joining this is cheap
    return group, home
