"""Finding the cgroup hierarchies in /proc/self/mountinfo, and what they allow."""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass

from judge.sandbox.kernel.cgroups.interface import CgroupSupport

_MOUNTINFO = "/proc/self/mountinfo"
_PREFERRED_V2_MOUNT = "/sys/fs/cgroup"


@dataclass(frozen=True)
class _Mount:
    root: str  #: path of the mount's root inside the hierarchy
    mount_point: str
    fstype: str
    mount_options: tuple[str, ...]
    super_options: tuple[str, ...]

    @property
    def read_only(self) -> bool:
        return "ro" in self.mount_options or "ro" in self.super_options


def _unescape(field: str) -> str:
    """mountinfo escapes space, tab, newline and backslash as \\ooo octal."""
    if "\\" not in field:
        return field
    out, i = [], 0
    while i < len(field):
        if field[i] == "\\" and i + 3 < len(field) and field[i + 1 : i + 4].isdigit():
            out.append(chr(int(field[i + 1 : i + 4], 8)))
            i += 4
        else:
            out.append(field[i])
            i += 1
    return "".join(out)


def _cgroup_mounts(mountinfo: str = _MOUNTINFO) -> list[_Mount]:
    """All cgroup and cgroup2 mounts, in mount order.

    mountinfo is used rather than ``mount`` output because it has the mount's
    root inside the hierarchy and unambiguous fields (optional fields end at
    the ``-`` separator).
    """
    mounts: list[_Mount] = []
    try:
        with open(mountinfo, encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return mounts
    for line in lines:
        fields = line.split(" ")
        try:
            sep = fields.index("-", 6)
        except ValueError:
            continue
        if len(fields) < sep + 3:
            continue
        fstype = fields[sep + 1]
        if fstype not in ("cgroup", "cgroup2"):
            continue
        mounts.append(
            _Mount(
                root=_unescape(fields[3]),
                mount_point=_unescape(fields[4]),
                fstype=fstype,
                mount_options=tuple(fields[5].split(",")),
                super_options=tuple(fields[sep + 3].split(",")),
            )
        )
    return mounts


def _v1_controller_mounts(mounts: Iterable[_Mount]) -> dict[str, _Mount]:
    """Map v1 controller name -> first mount carrying it.

    A v1 mount may combine controllers ("cpu,cpuacct"); the controllers are in
    the super options.  Later duplicates (bind mounts) are ignored; a mount of
    the hierarchy's root ("/") is preferred because that is where we create.
    """
    result: dict[str, _Mount] = {}
    for m in mounts:
        if m.fstype != "cgroup":
            continue
        for opt in m.super_options:
            if opt in ("memory", "pids", "cpu", "cpuacct") \
                    and (opt not in result or (result[opt].root != "/" and m.root == "/")):
                result[opt] = m
    return result


def _v2_controllers(mount_point: str) -> tuple[str, ...]:
    try:
        with open(os.path.join(mount_point, "cgroup.controllers"), encoding="ascii") as f:
            return tuple(f.read().split())
    except OSError:
        return ()


def _best_v2_mount(mounts: Iterable[_Mount]) -> tuple[_Mount | None, tuple[str, ...]]:
    """The cgroup2 mount to use: /sys/fs/cgroup first, else the one with memory.

    On hybrid systems a controller-less cgroup2 sits at /sys/fs/cgroup/unified;
    it is only usable if memory and pids are actually bound to it.
    """
    candidates = [m for m in mounts if m.fstype == "cgroup2"]
    candidates.sort(key=lambda m: (m.mount_point != _PREFERRED_V2_MOUNT, m.root != "/"))
    best: tuple[_Mount | None, tuple[str, ...]] = (None, ())
    for m in candidates:
        ctrls = _v2_controllers(m.mount_point)
        if "memory" in ctrls and "pids" in ctrls:
            return m, ctrls
        if best[0] is None:
            best = (m, ctrls)
    return best


def _can_write(mount: _Mount) -> bool:
    return os.geteuid() == 0 and not mount.read_only and os.access(mount.mount_point, os.W_OK)


def detect() -> CgroupSupport:
    """Find out which cgroup interface can limit memory and pids here.

    v1 wins when both memory and pids v1 controllers are mounted (a controller
    can be bound to only one hierarchy at a time, so on hybrid systems the v2
    mount has none of them).  Otherwise v2 is used if its root lists memory and
    pids in cgroup.controllers.  Never raises: the answer is also shown by
    ``judge doctor``.
    """
    mounts = _cgroup_mounts()
    if not mounts:
        return CgroupSupport(None, (), False, f"no cgroup filesystem is mounted (checked {_MOUNTINFO})")

    v1 = _v1_controller_mounts(mounts)
    if "memory" in v1 and "pids" in v1:
        ctrls = tuple(c for c in ("memory", "pids", "cpu", "cpuacct") if c in v1)
        needed = [v1["memory"], v1["pids"]] + ([v1["cpuacct"]] if "cpuacct" in v1 else [])
        writable = all(_can_write(m) for m in needed)
        where = ", ".join(f"{c} at {v1[c].mount_point}" for c in ctrls)
        if writable:
            reason = f"cgroup v1 is usable: {where}"
            if "cpuacct" not in v1:
                reason += " (no cpuacct controller: CPU time will read as 0)"
        elif os.geteuid() != 0:
            reason = f"cgroup v1 controllers are mounted ({where}) but we are not root, so groups cannot be created"
        else:
            reason = f"cgroup v1 controllers are mounted ({where}) but read-only or not writable"
        return CgroupSupport(1, ctrls, writable, reason)

    m2, ctrls2 = _best_v2_mount(mounts)
    if m2 is not None and "memory" in ctrls2 and "pids" in ctrls2:
        ctrls = tuple(c for c in ("memory", "pids", "cpu") if c in ctrls2)
        writable = _can_write(m2)
        if writable:
            reason = f"cgroup v2 is usable at {m2.mount_point} (controllers: {' '.join(ctrls2)})"
        elif os.geteuid() != 0:
            reason = f"cgroup v2 is mounted at {m2.mount_point} but we are not root, so groups cannot be created"
        else:
            reason = (f"cgroup v2 is mounted at {m2.mount_point} but is read-only or not writable "
                      f"(e.g. an unprivileged container)")
        return CgroupSupport(2, ctrls, writable, reason)

    missing_v1 = [c for c in ("memory", "pids") if c not in v1]
    parts = [f"cgroup v1 lacks the {' and '.join(missing_v1)} controller(s)"]
    if m2 is None:
        parts.append("no cgroup2 filesystem is mounted")
    else:
        listed = " ".join(ctrls2) or "none"
        parts.append(f"the cgroup2 mount at {m2.mount_point} offers controllers: {listed} (memory and pids are needed)")
    v1_ctrls = tuple(c for c in ("memory", "pids", "cpu", "cpuacct") if c in v1)
    return CgroupSupport(
        None, v1_ctrls or tuple(c for c in ("memory", "pids", "cpu") if c in ctrls2), False, "; ".join(parts)
    )
