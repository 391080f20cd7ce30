"""Mode reduced: isolation by uid, for containers that refuse namespaces and cgroup writes.

Course platforms run graders as root in an ordinary Docker container (default
capabilities and seccomp profile): ``unshare`` and cgroup writes are refused,
but root can still change uid.  Each zygote draws a uid of its own
(:mod:`judge.sandbox.uids`), gives each run a private folder owned by that uid,
and confines the run's files with Landlock (:mod:`judge.sandbox.landlock`) where
the kernel and the container allow it: then the run reads only what mode full's
root holds and writes only its folder.  Where Landlock is refused, the paths the
judge names are hidden from the uid by ACLs (:mod:`judge.sandbox.acl`), and
:func:`writable_folders` lists every folder the uid could write, so the clean-up
(:mod:`judge.sandbox.leftovers`) finds whatever it created there.
"""

from __future__ import annotations

import os
import time

from judge.sandbox import acl

#: File systems with nothing a run could leave behind (or that are not files at all).
_PSEUDO = {"proc", "sysfs", "cgroup", "cgroup2", "devpts", "debugfs", "tracefs", "securityfs", "bpf", "pstore",
           "configfs", "fusectl", "binfmt_misc", "autofs", "nsfs", "hugetlbfs", "efivarfs", "selinuxfs", "rpc_pipefs"}
SCAN_BUDGET_FOLDERS = 200_000
SCAN_BUDGET_SECONDS = 5.0


#: File systems whose files are memory: what a run writes there counts against its memory limit.
MEMORY_BACKED = ("tmpfs", "ramfs", "shm")


def workdir_parent() -> tuple[str, bool]:
    """Where runs' private folders go, and whether that is memory (tmpfs): a disk-backed folder root may write
    is preferred, since files on tmpfs are memory no resident set shows (the memory watch then counts them)."""
    import tempfile

    kinds = {point: kind for point, kind, _ in _mounts()}
    candidates = [tempfile.gettempdir(), "/var/tmp", "/tmp"]
    usable = [c for c in dict.fromkeys(candidates) if os.path.isdir(c) and os.access(c, os.W_OK)]
    if not usable:
        raise OSError("no writable folder for the runs' private folders")

    def kind_of(path: str) -> str:
        best = max((point for point in kinds if path == point or path.startswith(point.rstrip("/") + "/")),
                   key=len, default="/")
        return kinds.get(best, "")

    for folder in usable:
        if kind_of(folder) not in MEMORY_BACKED:
            return folder, False
    return usable[0], True


def private_workdir(uid: int, parent: str | None = None) -> str:
    """A fresh folder only ``uid`` can use, in ``parent``: the run's HOME, TMPDIR and working directory."""
    import tempfile

    path = tempfile.mkdtemp(prefix="numpy-judge-run-", dir=parent)
    os.chown(path, uid, uid)
    os.chmod(path, 0o700)
    return path


def close_to_writes(folders: list[str] | tuple[str, ...], uid: int) -> list[str]:
    """Leave ``uid`` only search permission on each folder (an ACL entry ``--x``), so that a run can reach its
    private folder but create nothing anywhere else: the fallback where Landlock is refused.  The folders it
    could not close (no ACL support, a read-only mount) are returned: the clean-up sweeps those."""
    still_open = []
    for folder in folders:
        try:
            acl.set_uid_permissions(folder, uid, 0o1)
        except OSError:
            still_open.append(folder)
    return still_open


def _mounts() -> list[tuple[str, str, bool]]:
    """(mount point, file system type, read-only) of every mount this process sees."""
    found = []
    try:
        with open("/proc/self/mountinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                left, _, right = line.partition(" - ")
                fields, after = left.split(), right.split()
                if len(fields) < 6 or not after:
                    continue
                point = fields[4].replace("\\040", " ").replace("\\011", "\t").replace("\\012", "\n") \
                    .replace("\\134", "\\")
                found.append((point, after[0], "ro" in fields[5].split(",")))
    except OSError:
        pass
    return found


def writable_folders(uid: int, system_uid_below: int = 1 << 24) -> tuple[list[str], bool]:
    """Every folder ``uid`` could create files in (search and write permission, ACLs included) on a writable,
    non-pseudo file system, and whether the walk saw everything (False: its budget ran out first).

    Folders owned by uids at or above ``system_uid_below`` (other runs' uids) are neither listed nor entered:
    what another run made is that run's to remove, and its names stay out of this zygote.  Each mount is walked
    on its own (a read-only root may hold writable mounts, e.g. ``--read-only --tmpfs /tmp``); the walk enters
    only folders ``uid`` could search, since a run cannot reach anything below one it cannot."""
    mounts = _mounts()
    skip = {point for point, kind, _ in mounts if kind in _PSEUDO}
    roots = sorted({point for point, kind, ro in mounts if kind not in _PSEUDO and not ro} or {"/"})
    found: list[str] = []
    seen_folders = 0
    deadline = time.monotonic() + SCAN_BUDGET_SECONDS
    for root in roots:
        if any(root == s or root.startswith(s.rstrip("/") + "/") for s in skip):
            continue
        try:
            device = os.stat(root).st_dev
        except OSError:
            continue
        todo = [root]
        while todo:
            folder = todo.pop()
            seen_folders += 1
            if seen_folders > SCAN_BUDGET_FOLDERS or (seen_folders % 512 == 0 and time.monotonic() > deadline):
                return sorted(set(found)), False
            try:
                st = os.stat(folder, follow_symlinks=False)
                if st.st_uid >= system_uid_below:
                    continue
                perm = acl.permissions(folder, uid, st)
            except OSError:
                continue
            if not perm & 0o1:
                continue
            if perm & 0o2:
                found.append(folder)
            try:
                with os.scandir(folder) as entries:
                    for entry in entries:
                        try:
                            if entry.is_dir(follow_symlinks=False) and entry.stat(follow_symlinks=False).st_dev == device:
                                todo.append(entry.path)
                        except OSError:
                            continue
            except OSError:
                continue
    return sorted(set(found)), True


def hide_paths(paths: list[str], uid: int, stale=None) -> list[str]:
    """Hide each of ``paths`` from ``uid`` (:func:`judge.sandbox.acl.hide_from_uid`); what was done.  Raises
    :class:`~judge.errors.SandboxUnavailable` for a path that can be neither hidden nor already denied."""
    done = []
    for path in paths:
        what = acl.hide_from_uid(path, uid, stale)
        if what:
            done.append(what)
    return done
