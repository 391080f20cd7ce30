"""A delegated cgroup v2 subtree: where a normal user (mode rootless) can still have kernel limits.

Why this module exists
----------------------
A normal user cannot create groups under /sys/fs/cgroup, but systemd hands each
user subtrees of their own (``Delegate=yes``: user@UID.service, or a scope from
``systemd-run --user --scope CMD``): the directory and its ``cgroup.procs``,
``cgroup.threads`` and ``cgroup.subtree_control`` are chowned to the user.  In such
a subtree the judge can make its worker groups exactly as mode full makes them
under ``/sys/fs/cgroup/judge`` (:class:`judge.sandbox.kernel.cgroups.v2.CgroupV2`, only
rooted here), and get memory.max, pids.max, memory.peak, oom_kill and cpu.stat
instead of rlimits.

Two kernel rules decide what is possible (Documentation/admin-guide/cgroup-v2.rst,
"Delegation" and "No Internal Process Constraint"):

* moving a process needs write access to ``cgroup.procs`` of the common ancestor
  of its old and new group, so the judge can only use the subtree it is already
  in: the delegated group ``D`` holding the judge's process;
* controllers can be enabled in ``D/cgroup.subtree_control`` only while ``D``
  holds no process, so the judge first moves itself into the leaf
  ``D/judge-main`` (:func:`claim`).  Only itself: processes of others (the shell
  that started it) are not the judge's to move, so then it falls back to rlimits
  and says why.

The layout, with ``D`` in place of ``/sys/fs/cgroup``::

    D/judge-main/              the judge's own process (and whatever it starts but the zygotes)
    D/judge/<name>/run-<k>     a zygote and its current run (see cgroups.v2)

:func:`find` only looks (doctor, the ladder, the zygote); :func:`claim` also moves
the judge's process and enables the controllers.  Neither raises: a
:class:`Delegation` carries the one-line reason ``judge doctor`` prints.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from judge.sandbox.kernel.cgroups.files import read, read_pids, write
from judge.sandbox.kernel.cgroups.interface import CgroupError
from judge.sandbox.kernel.cgroups.mounts import _best_v2_mount, _cgroup_mounts, _Mount

#: The leaf of the delegated group that the judge's own process moves into.
MAIN_LEAF = "judge-main"
_WANTED = ("memory", "pids", "cpu")
_REQUIRED = ("memory", "pids")
_HINT = "run the judge under `systemd-run --user --scope` to get one"


@dataclass(frozen=True)
class Delegation:
    """A delegated cgroup v2 group the judge can make its worker groups in, or why there is none."""

    ok: bool
    reason: str  #: one line for doctor and the verdict's note
    path: str | None = None  #: the group's directory, e.g. /sys/fs/cgroup/user.slice/.../run-x.scope
    hier: str | None = None  #: the same group as /proc/self/cgroup names it
    controllers: tuple[str, ...] = ()

    @property
    def mount(self) -> _Mount:
        """The group as a stand-in mount: CgroupV2 makes ``judge/<name>`` below it."""
        assert self.ok and self.path and self.hier is not None
        return _Mount(root=self.hier, mount_point=self.path, fstype="cgroup2", mount_options=(), super_options=())

    def describe(self) -> str:
        if self.ok:
            return f"cgroup v2 delegation: yes — {self.hier} ({' '.join(self.controllers)})"
        return f"cgroup v2 delegation: no — {self.reason}"


def _own_v2_path() -> str | None:
    """This process's group on the unified hierarchy ("0::/path" in /proc/self/cgroup)."""
    try:
        with open("/proc/self/cgroup", encoding="utf-8", errors="replace") as f:
            for line in f.read().splitlines():
                if line.startswith("0::"):
                    return line[3:].removesuffix(" (deleted)")
    except OSError:
        return None
    return None


def _owned(path: str) -> str | None:
    """None if ``path`` is a group this uid may manage (directory, cgroup.procs and subtree_control
    owned by us and writable), else what is missing."""
    uid = os.geteuid()
    for name in ("", "cgroup.procs", "cgroup.subtree_control"):
        p = os.path.join(path, name) if name else path
        try:
            st = os.stat(p)
        except OSError as exc:
            return f"{p}: {exc.strerror}"
        if st.st_uid != uid:
            return f"{'has its ' + name if name else 'is'} owned by uid {st.st_uid}"
        if not os.access(p, os.W_OK):
            return f"{name or 'the directory'} is not writable"
    return None


def find() -> Delegation:
    """The delegated group the judge's process is in (or whose ``judge-main`` leaf it is in); never raises."""
    if os.geteuid() == 0:
        return Delegation(False, "running as root: mode full makes its groups at the hierarchy's root")
    mounts = _cgroup_mounts()
    m2, ctrls = _best_v2_mount(mounts)
    if m2 is None:
        return Delegation(False, "no cgroup2 file system is mounted")
    if not ("memory" in ctrls and "pids" in ctrls):
        where = "cgroup v1 holds them" if any(m.fstype == "cgroup" for m in mounts) else "not offered"
        return Delegation(False, f"the cgroup2 mount at {m2.mount_point} has no memory and pids controllers ({where})")
    hier = _own_v2_path()
    if hier is None:
        return Delegation(False, "/proc/self/cgroup names no cgroup v2 group")
    root = m2.root.rstrip("/")
    if not (hier == root or hier.startswith(root + "/") or root == ""):
        return Delegation(False, f"our group {hier} is outside the cgroup2 mount at {m2.mount_point}")

    def fs(h: str) -> str:
        return m2.mount_point.rstrip("/") + h[len(root):]

    if os.path.basename(hier) == MAIN_LEAF and _owned(fs(os.path.dirname(hier))) is None:
        hier = os.path.dirname(hier)  # claimed before (this judge, or the judge that started us)
    path = fs(hier)
    why = _owned(path)
    if why is not None:
        return Delegation(False, f"{hier or '/'} {why}; {_HINT}")
    try:
        available = tuple(read(os.path.join(path, "cgroup.controllers")).split())
        enabled = set(read(os.path.join(path, "cgroup.subtree_control")).split())
        others = read_pids(os.path.join(path, "cgroup.procs")) - {os.getpid()}
    except CgroupError as exc:
        return Delegation(False, str(exc))
    missing = [c for c in _REQUIRED if c not in available]
    if missing:
        return Delegation(False, f"{hier} is ours but does not offer the {' and '.join(missing)} controller(s); "
                                 f"systemd delegates them with Delegate=yes")
    if others and not set(_REQUIRED) <= enabled:
        shown = " ".join(str(p) for p in sorted(others)[:5])
        return Delegation(False, f"{hier} is ours but also holds processes {shown}, so it cannot hand "
                                 f"controllers to groups below it; start the judge alone in it "
                                 f"(`systemd-run --user --scope judge ...`)")
    return Delegation(True, "", path, hier, tuple(c for c in _WANTED if c in available))


def claim() -> Delegation:
    """Make the delegated group usable: move this process into ``judge-main``, enable the controllers.

    Idempotent, and never raises: if a step fails, the answer says why and the
    judge uses rlimits.  Call it in the judge's process before it starts any zygote
    (a process left in the group would block ``cgroup.subtree_control``).
    """
    found = find()
    if not found.ok:
        return found
    path = found.path
    assert path is not None
    try:
        leaf = os.path.join(path, MAIN_LEAF)
        try:
            os.mkdir(leaf, 0o755)
        except FileExistsError:
            pass
        if os.getpid() in read_pids(os.path.join(path, "cgroup.procs")):
            write(os.path.join(leaf, "cgroup.procs"), os.getpid())
        enabled = set(read(os.path.join(path, "cgroup.subtree_control")).split())
        for ctrl in found.controllers:
            if ctrl not in enabled:
                try:
                    write(os.path.join(path, "cgroup.subtree_control"), f"+{ctrl}")
                except CgroupError:
                    if ctrl in _REQUIRED:
                        raise
    except (OSError, CgroupError) as exc:
        return Delegation(False, f"{found.hier} is ours but could not be prepared ({exc})")
    return find()
