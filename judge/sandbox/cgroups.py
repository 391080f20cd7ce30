"""Per-worker control groups: limits and kernel-side accounting for submissions.

Why this module exists
----------------------
The judge's verdicts ("memory limit exceeded", "too many processes", CPU time)
must come from records the kernel keeps, not from what a learner's process says
about itself: a submission can catch signals, fork, or die in odd ways, but it
cannot edit its cgroup's counters.  A long-lived zygote moves itself *once* into
a per-worker group (joining is slow after idle gaps; children inherit the group
at fork), then around every child it calls :meth:`WorkerCgroup.set_limits`,
:meth:`WorkerCgroup.reset_peak` and :meth:`WorkerCgroup.snapshot`, and after the
child is gone another :meth:`~WorkerCgroup.snapshot` plus
:meth:`WorkerCgroup.kill_all` (keeping the zygote).  Counters are cumulative;
callers compare two snapshots.

Two kernels interfaces are supported behind one small interface:

* cgroup v1 (controllers mounted separately, e.g. ``/sys/fs/cgroup/memory``):
  the group is ``<mount>/judge/<name>`` in the memory, pids and (if present)
  cpuacct hierarchies.
* cgroup v2 (a unified ``cgroup2`` mount with the controllers in it): the group
  is ``<mount>/judge/<name>``; ``judge/`` only delegates controllers, because a
  v2 group with children may not hold processes ("no internal processes").

Only the standard library is used, and files are written with plain
``open``/``write`` so the kernel's errno reaches us unaltered; every ``OSError``
is re-raised as :class:`CgroupError` naming the file, because "Device or
resource busy" alone is useless in a judge log.
"""

from __future__ import annotations

import errno
import os
import signal
import time
from dataclasses import dataclass
from typing import Collection, Iterable, Protocol, runtime_checkable

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
    "JUDGE_DIR",
]

#: Name of the judge's own subtree under each hierarchy root.
JUDGE_DIR = "judge"

_MOUNTINFO = "/proc/self/mountinfo"
_PREFERRED_V2_MOUNT = "/sys/fs/cgroup"
_KILL_TIMEOUT = 2.0
_RMDIR_TIMEOUT = 2.0


# --------------------------------------------------------------------------- #
# Errors and value types
# --------------------------------------------------------------------------- #


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
    memory_peak: int | None  #: bytes, peak since last reset_peak(); None if unknown
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
        """Restart the peak-memory watermark at the current usage."""

    def kill_all(self, keep: Collection[int] = (), timeout: float = _KILL_TIMEOUT) -> int:
        """SIGKILL everything but ``keep``; return how many processes were killed."""

    def remove(self) -> None:
        """Kill everything and delete the group's directories."""


# --------------------------------------------------------------------------- #
# Small file helpers (plain open/write, errors name the file)
# --------------------------------------------------------------------------- #


def _describe(exc: OSError) -> str:
    return f"{errno.errorcode.get(exc.errno or 0, exc.errno)}: {exc.strerror}"


def _read(path: str) -> str:
    try:
        with open(path, "r", encoding="ascii", errors="replace") as f:
            return f.read()
    except OSError as exc:
        raise CgroupError(f"cannot read {path} ({_describe(exc)})", exc.errno) from exc


def _write(path: str, value: str | int) -> None:
    """Write one value in a single write(2), as cgroup files require."""
    data = str(value).encode("ascii")
    try:
        fd = os.open(path, os.O_WRONLY)
    except OSError as exc:
        raise CgroupError(f"cannot open {path} for writing ({_describe(exc)})", exc.errno) from exc
    try:
        os.write(fd, data)
    except OSError as exc:
        raise CgroupError(
            f"cannot write {data.decode()!r} to {path} ({_describe(exc)})", exc.errno
        ) from exc
    finally:
        os.close(fd)


def _read_int(path: str) -> int:
    text = _read(path).strip()
    if text == "max":
        return -1
    try:
        return int(text)
    except ValueError as exc:
        raise CgroupError(f"unexpected content {text!r} in {path}") from exc


def _read_key(path: str, key: str, default: int = 0) -> int:
    """Value of ``key`` in a flat-keyed file such as memory.events/pids.events.

    A missing key is ``default`` because some counters only appear once they
    are non-zero or on newer kernels.
    """
    for line in _read(path).splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == key:
            try:
                return int(parts[1])
            except ValueError:
                break
    return default


def _read_pids(path: str) -> set[int]:
    try:
        return {int(x) for x in _read(path).split()}
    except CgroupError as exc:
        if exc.errno == errno.ENOENT:  # group already removed: nothing inside
            return set()
        raise


def _mkdir(path: str) -> bool:
    """Create ``path`` (one level); return False if it already existed."""
    try:
        os.mkdir(path, 0o755)
        return True
    except FileExistsError:
        return False
    except OSError as exc:
        raise CgroupError(f"cannot create cgroup directory {path} ({_describe(exc)})", exc.errno) from exc


def _rmdir(path: str, timeout: float = _RMDIR_TIMEOUT) -> None:
    """rmdir a cgroup, retrying EBUSY: killed tasks take a moment to detach."""
    deadline = time.monotonic() + timeout
    delay = 0.005
    while True:
        try:
            os.rmdir(path)
            return
        except FileNotFoundError:
            return
        except OSError as exc:
            if exc.errno == errno.EBUSY and time.monotonic() < deadline:
                time.sleep(delay)
                delay = min(delay * 2, 0.1)
                continue
            raise CgroupError(f"cannot remove cgroup directory {path} ({_describe(exc)})", exc.errno) from exc


def _validate_name(name: str) -> None:
    if not name or "/" in name or name in (".", "..") or "\0" in name:
        raise ValueError(f"invalid cgroup name {name!r}: must be one path component")


# --------------------------------------------------------------------------- #
# /proc/self/mountinfo
# --------------------------------------------------------------------------- #


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
            if opt in ("memory", "pids", "cpu", "cpuacct"):
                if opt not in result or (result[opt].root != "/" and m.root == "/"):
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


# --------------------------------------------------------------------------- #
# Detection
# --------------------------------------------------------------------------- #


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
            reason = f"cgroup v2 is mounted at {m2.mount_point} but is read-only or not writable (e.g. an unprivileged container)"
        return CgroupSupport(2, ctrls, writable, reason)

    missing_v1 = [c for c in ("memory", "pids") if c not in v1]
    parts = [f"cgroup v1 lacks the {' and '.join(missing_v1)} controller(s)"]
    if m2 is None:
        parts.append("no cgroup2 filesystem is mounted")
    else:
        listed = " ".join(ctrls2) or "none"
        parts.append(f"the cgroup2 mount at {m2.mount_point} offers controllers: {listed} (memory and pids are needed)")
    v1_ctrls = tuple(c for c in ("memory", "pids", "cpu", "cpuacct") if c in v1)
    return CgroupSupport(None, v1_ctrls or tuple(c for c in ("memory", "pids", "cpu") if c in ctrls2), False, "; ".join(parts))


# --------------------------------------------------------------------------- #
# Shared killing logic
# --------------------------------------------------------------------------- #


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

    def _members(self) -> set[int]:
        pids: set[int] = set()
        for f in self._procs_files():
            pids |= _read_pids(f)
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
                raise CgroupError(f"cannot SIGKILL pid {pid} in {self.path_description} ({_describe(exc)})", exc.errno) from exc
        finally:
            if pidfd >= 0:
                os.close(pidfd)

    def _bulk_kill(self) -> bool:
        """Kill the whole group in one kernel operation if possible (v2 only)."""
        return False

    def kill_all(self, keep: Collection[int] = (), timeout: float = _KILL_TIMEOUT) -> int:
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


# --------------------------------------------------------------------------- #
# cgroup v1
# --------------------------------------------------------------------------- #


class CgroupV1(_Base):
    """A worker group made of one directory per v1 hierarchy.

    memory and pids are required, cpuacct is used when mounted (it may be
    co-mounted with cpu, in which case it is the same directory).
    """

    version = 1

    def __init__(self, name: str, mounts: dict[str, _Mount]) -> None:
        _validate_name(name)
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
            _mkdir(os.path.dirname(d))
            fresh = _mkdir(d) and fresh
        self._has_memsw = os.path.exists(os.path.join(self._mem, "memory.memsw.limit_in_bytes"))
        return fresh

    def _procs_files(self) -> list[str]:
        return [os.path.join(d, "cgroup.procs") for d in self._dirs()]

    def _membership_lines(self) -> tuple[str, ...]:
        return self._keys

    # -- interface ---------------------------------------------------------
    def add_process(self, pid: int) -> None:
        """Write ``pid`` to cgroup.procs of every hierarchy (memory first).

        Memory is joined first so that nothing the process allocates after
        this call escapes the limit.  v1 does not move already-charged pages
        (move_charge_at_immigrate stays 0), which is what we want: the
        zygote's own imports stay charged to where it came from.
        """
        for d in self._dirs():
            _write(os.path.join(d, "cgroup.procs"), pid)

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
            current = _read_int(mem)
            if current < 0 or memory_bytes >= current:
                _write(memsw, memory_bytes)
                _write(mem, memory_bytes)
            else:
                _write(mem, memory_bytes)
                _write(memsw, memory_bytes)
        else:
            _write(mem, memory_bytes)
        _write(os.path.join(self._pids, "pids.max"), max_pids)

    def snapshot(self) -> CgroupSnapshot:
        """oom_kill from memory.oom_control (failcnt stays 0 on OOM kills)."""
        cpu = _read_int(os.path.join(self._cpuacct, "cpuacct.usage")) if self._cpuacct else 0
        return CgroupSnapshot(
            oom_kills=_read_key(os.path.join(self._mem, "memory.oom_control"), "oom_kill"),
            pids_refused=_read_key(os.path.join(self._pids, "pids.events"), "max"),
            cpu_ns=cpu,
            memory_peak=_read_int(os.path.join(self._mem, "memory.max_usage_in_bytes")),
            memory_current=_read_int(os.path.join(self._mem, "memory.usage_in_bytes")),
        )

    def reset_peak(self) -> None:
        """Writing 0 to max_usage_in_bytes restarts the watermark at current usage."""
        _write(os.path.join(self._mem, "memory.max_usage_in_bytes"), 0)

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
            _rmdir(d)


_V1_SUBSYS = frozenset(
    ("cpuset", "cpu", "cpuacct", "blkio", "memory", "devices", "freezer", "net_cls",
     "perf_event", "net_prio", "hugetlb", "pids", "rdma", "misc")
)


# --------------------------------------------------------------------------- #
# cgroup v2
# --------------------------------------------------------------------------- #


class CgroupV2(_Base):
    """A worker group ``<mount>/judge/<name>`` on the unified hierarchy."""

    version = 2

    def __init__(self, name: str, mount: _Mount) -> None:
        _validate_name(name)
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
        have = set(_read(path).split())
        available = set(_read(os.path.join(cgroup_dir, "cgroup.controllers")).split())
        for ctrl in wanted:
            if ctrl in have:
                continue
            if ctrl not in available:
                if ctrl in required:
                    raise CgroupUnavailable(f"controller {ctrl} is not offered in {cgroup_dir}/cgroup.controllers")
                continue
            try:
                _write(path, f"+{ctrl}")
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
        _mkdir(self._parent)
        self._enable(self._parent, wanted, required)
        fresh = _mkdir(self._dir)
        ctrls = set(_read(os.path.join(self._dir, "cgroup.controllers")).split())
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
        _write(path, 1)
        return True

    # -- interface ---------------------------------------------------------
    def add_process(self, pid: int) -> None:
        """Write ``pid`` to cgroup.procs (moves all its threads)."""
        _write(os.path.join(self._dir, "cgroup.procs"), pid)

    def set_limits(self, memory_bytes: int, max_pids: int) -> None:
        """memory.max, memory.swap.max=0 (no swapping around the limit), pids.max.

        memory.oom.group is deliberately left 0: the zygote shares this group
        and must survive a submission's OOM kill.
        """
        if memory_bytes <= 0 or max_pids <= 0:
            raise ValueError("memory_bytes and max_pids must be positive")
        _write(os.path.join(self._dir, "memory.max"), memory_bytes)
        swap = os.path.join(self._dir, "memory.swap.max")
        if os.path.exists(swap):  # absent without swap accounting
            _write(swap, 0)
        _write(os.path.join(self._dir, "pids.max"), max_pids)

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
        return _read_int(path)

    def snapshot(self) -> CgroupSnapshot:
        """oom_kill from memory.events, max from pids.events, usage_usec from cpu.stat.

        cpu.stat exists in every non-root v2 group even without the cpu
        controller, so CPU time is always available.
        """
        d = self._dir
        return CgroupSnapshot(
            oom_kills=_read_key(os.path.join(d, "memory.events"), "oom_kill"),
            pids_refused=_read_key(os.path.join(d, "pids.events"), "max"),
            cpu_ns=_read_key(os.path.join(d, "cpu.stat"), "usage_usec") * 1000,
            memory_peak=self._read_peak(),
            memory_current=_read_int(os.path.join(d, "memory.current")),
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
        _rmdir(self._dir)

    def __del__(self) -> None:
        self._close_peak()


# --------------------------------------------------------------------------- #
# Factory
# --------------------------------------------------------------------------- #


def create_worker_cgroup(name: str) -> WorkerCgroup:
    """Create (or take over) the worker group ``judge/<name>``.

    A group left by a crashed run is reused after killing whatever is still in
    it (never the caller) and resetting its peak, so restarting the judge
    needs no manual cleanup.  Raises :class:`CgroupUnavailable` when memory
    and pids cannot both be limited.
    """
    _validate_name(name)
    support = detect()
    if support.version is None:
        raise CgroupUnavailable(support.reason)
    if not support.writable:
        raise CgroupUnavailable(support.reason)
    mounts = _cgroup_mounts()
    group: CgroupV1 | CgroupV2
    try:
        if support.version == 1:
            group = CgroupV1(name, _v1_controller_mounts(mounts))
        else:
            m2, _ = _best_v2_mount(mounts)
            assert m2 is not None
            group = CgroupV2(name, m2)
        fresh = group._create()
    except CgroupUnavailable:
        raise
    except CgroupError as exc:
        raise CgroupUnavailable(f"cannot set up cgroup judge/{name}: {exc}") from exc
    if not fresh:
        group.kill_all()
    return group


def remove_worker_cgroup(name: str) -> None:
    """Remove ``judge/<name>`` from outside, once its zygote has exited; quiet when already gone."""
    try:
        create_worker_cgroup(name).remove()
    except CgroupError:
        pass
