"""Mode reduced: isolation by uid alone, for containers that refuse namespaces and cgroup writes.

Course platforms run graders as root in an ordinary Docker container (default
capabilities and seccomp profile): ``unshare`` and cgroup writes are refused,
but root can still change uid.  Each zygote claims a uid no other process uses
(so RLIMIT_NPROC, which counts per real uid, counts only its runs, and after a
run ``kill(-1)`` from that uid ends every process the run left), gives each run
a private folder owned by that uid, deletes what the uid created in the
world-writable folders afterwards, and keeps the judge's own files unreadable
to it (:func:`hide_from_uid`).  On a read-only root (Exercism's ``docker run
--read-only``) nothing can be changed: the judge then runs only if the files'
own permissions already keep that uid out (:func:`denied_by`), and otherwise
refuses with a message saying what to change when the image is built.
"""

from __future__ import annotations

import errno
import fcntl
import os
import signal
import stat
import struct
import time

#: First uid tried for runs in mode reduced (Debian leaves 60000-64999 to be created on demand).
REDUCED_UID_BASE = 62000
REDUCED_UID_COUNT = 1000
_SHARED_WRITABLE = ("/tmp", "/var/tmp", "/dev/shm")
_LOCK_DIRS = ("/run/lock", "/run")  # then the temporary folder (tempfile.gettempdir())


def _uids_in_use() -> set[int]:
    used = set()
    try:
        with open("/etc/passwd", encoding="utf-8", errors="replace") as f:
            used.update(int(line.split(":")[2]) for line in f if line.count(":") >= 3 and line.split(":")[2].isdigit())
    except OSError:
        pass
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                used.add(os.stat(f"/proc/{pid}").st_uid)
            except OSError:
                pass
    return used


def _lock_dir() -> str:
    import tempfile  # here: every zygote imports this module, only mode reduced's needs tempfile and shutil

    for folder in (*_LOCK_DIRS, tempfile.gettempdir()):
        if os.path.isdir(folder) and os.access(folder, os.W_OK):
            return folder
    raise OSError("no writable folder for the sandbox uid locks")


def claim_unused_uid() -> tuple[int, int]:
    """A uid no account and no process uses, held by a lock file for this zygote's life: (uid, lock fd)."""
    used = _uids_in_use()
    folder = _lock_dir()
    for uid in range(REDUCED_UID_BASE, REDUCED_UID_BASE + REDUCED_UID_COUNT):
        if uid in used:
            continue
        fd = os.open(os.path.join(folder, f"numpy-judge-uid-{uid}.lock"),
                     os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            continue
        return uid, fd
    raise OSError(f"no free uid in {REDUCED_UID_BASE}..{REDUCED_UID_BASE + REDUCED_UID_COUNT - 1}")


def private_workdir(uid: int) -> str:
    """A fresh folder only ``uid`` can use: the run's HOME, TMPDIR and working directory."""
    import tempfile

    path = tempfile.mkdtemp(prefix=f"numpy-judge-run-{uid}-")
    os.chown(path, uid, uid)
    os.chmod(path, 0o700)
    return path


def reap_children() -> None:
    """Reap every ended child (the zygote is a subreaper: a run's orphans end up as its children)."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def kill_uid(uid: int, timeout: float = 2.0) -> int:
    """SIGKILL every process of ``uid``; how many of them had outlived the run.

    kill(-1) from a child that became ``uid`` reaches every process of the uid, whatever its
    session or parent (kill(-1) reports success even when it reached none, so it cannot say
    when they are all gone).  All of them descend from this zygote, a subreaper, so they are
    then reaped here: the run is clean when this process has no children left."""
    pid = os.fork()
    if pid == 0:
        try:
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)
            os.kill(-1, signal.SIGKILL)  # every process this uid may signal, never this one
        finally:
            os._exit(0)
    os.waitpid(pid, 0)
    return kill_descendants(timeout)


def kill_descendants(timeout: float = 2.0) -> int:
    """SIGKILL and reap every descendant of this process (a subreaper: a run's orphans end up as its
    children) until none is left; how many there were."""
    from judge.sandbox.watch import process_tree

    left = 0
    deadline = time.monotonic() + timeout
    while True:
        reap_children()
        others = [p for p in process_tree(os.getpid()) if p != os.getpid()]
        left = max(left, len(others))
        if not others:
            return left
        if time.monotonic() > deadline:
            raise OSError(f"{len(others)} processes of the run survived {timeout:g} s of SIGKILL")
        for other in others:
            try:
                os.kill(other, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.002)


def remove_uid_files(uid: int, workdir: str | None) -> None:
    """Delete the run's folder and whatever ``uid`` created directly in the world-writable folders."""
    import shutil

    if workdir:
        shutil.rmtree(workdir, ignore_errors=True)
    for folder in _SHARED_WRITABLE:
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            try:
                st = entry.stat(follow_symlinks=False)
                if st.st_uid != uid:
                    continue
                if stat.S_ISDIR(st.st_mode):
                    shutil.rmtree(entry.path, ignore_errors=True)
                else:
                    os.unlink(entry.path)
            except OSError:
                continue


_ACL_XATTR = "system.posix_acl_access"
_ACL_VERSION = 2
_ACL_USER_OBJ, _ACL_USER, _ACL_GROUP_OBJ, _ACL_GROUP, _ACL_MASK, _ACL_OTHER = 1, 2, 4, 8, 16, 32
_ACL_UNDEFINED_ID = 0xFFFFFFFF


def _acl_entries(path: str, mode: int) -> dict[tuple[int, int], int]:
    """(tag, id) -> permission bits of ``path``'s access ACL (the mode's three entries if it has none)."""
    try:
        raw = os.getxattr(path, _ACL_XATTR, follow_symlinks=False)
    except OSError:
        raw = b""
    entries: dict[tuple[int, int], int] = {}
    if len(raw) >= 4 and struct.unpack_from("<I", raw)[0] == _ACL_VERSION:
        for offset in range(4, len(raw) - 7, 8):
            tag, perm, ident = struct.unpack_from("<HHI", raw, offset)
            entries[(tag, ident)] = perm
    if not entries:
        entries = {(_ACL_USER_OBJ, _ACL_UNDEFINED_ID): (mode >> 6) & 7,
                   (_ACL_GROUP_OBJ, _ACL_UNDEFINED_ID): (mode >> 3) & 7,
                   (_ACL_OTHER, _ACL_UNDEFINED_ID): mode & 7}
    return entries


def deny_uid(path: str, uid: int) -> None:
    """Add a POSIX ACL entry giving ``uid`` no access to ``path`` (a folder: nothing below it is
    reachable then), leaving everyone else's access as it was.  Raises OSError where the file
    system has no ACLs."""
    mode = stat.S_IMODE(os.stat(path).st_mode)
    entries = _acl_entries(path, mode)
    if entries.get((_ACL_USER, uid)) == 0:
        return
    entries[(_ACL_USER, uid)] = 0
    if (_ACL_MASK, _ACL_UNDEFINED_ID) not in entries:  # the mask must cover the group class as it is
        entries[(_ACL_MASK, _ACL_UNDEFINED_ID)] = entries[(_ACL_GROUP_OBJ, _ACL_UNDEFINED_ID)] | 0
        for (tag, _), perm in entries.items():
            if tag in (_ACL_USER, _ACL_GROUP):
                entries[(_ACL_MASK, _ACL_UNDEFINED_ID)] |= perm
    raw = struct.pack("<I", _ACL_VERSION) + b"".join(
        struct.pack("<HHI", tag, perm, ident) for (tag, ident), perm in sorted(entries.items()))
    os.setxattr(path, _ACL_XATTR, raw, follow_symlinks=False)


def hide_from_uid(path: str, uid: int) -> str:
    """Make ``path`` (a bundle or the judge's cache) unreachable for ``uid``; what was done.

    Raises :class:`~judge.errors.SandboxUnavailable` (a clear refusal, learner code never runs)
    when nothing can be changed -- a read-only file system -- and nothing already keeps
    ``uid`` out, or when the change itself fails."""
    if not os.path.exists(path):
        return ""
    try:
        deny_uid(path, uid)
        return f"ACL denies uid {uid} {path}"
    except OSError:
        pass  # no ACL support (or a read-only file system): fall back to the mode bits
    try:
        if hide_from_sandbox(path):
            return f"{path}: 'other' permissions removed (no ACL support)"
        return ""
    except OSError as exc:
        if exc.errno == errno.EROFS and (blocker := denied_by(path, uid)) is not None:
            return f"{path}: read-only file system; {blocker} already denies uid {uid}"
        from judge.errors import SandboxUnavailable

        why = "it is on a read-only file system" if exc.errno == errno.EROFS else os.strerror(exc.errno or 0)
        raise SandboxUnavailable(
            f"mode reduced cannot hide {path} from the sandbox's uid {uid} ({why}) and its permissions do not "
            f"already keep other users out; make it (or a parent folder) unreadable to other users where it "
            f"is written, e.g. 'chmod o-rwx {path}' when the image is built") from None


def _uid_may_enter(path: str, uid: int) -> bool:
    """Whether ``uid`` could list or search ``path``, as a run in mode reduced is: gid == uid, no
    supplementary groups.  Its owner always may (it could give itself the permission back)."""
    st = os.stat(path)
    if st.st_uid == uid:
        return True
    mode = stat.S_IMODE(st.st_mode)
    entries = _acl_entries(path, mode)
    mask = entries.get((_ACL_MASK, _ACL_UNDEFINED_ID), 7)
    if (_ACL_USER, uid) in entries:
        perm = entries[(_ACL_USER, uid)] & mask
    elif st.st_gid == uid or (_ACL_GROUP, uid) in entries:
        perm = (entries[(_ACL_GROUP_OBJ, _ACL_UNDEFINED_ID)] if st.st_gid == uid else 0) \
            | entries.get((_ACL_GROUP, uid), 0)
        perm &= mask
    else:
        perm = entries[(_ACL_OTHER, _ACL_UNDEFINED_ID)]
    return bool(perm & 0o5)


def denied_by(path: str, uid: int) -> str | None:
    """The folder -- ``path`` itself or one of its ancestors -- whose permissions already keep
    ``uid`` from reading or searching it (so nothing below is reachable), or None."""
    current = os.path.realpath(path)
    while True:
        try:
            if not _uid_may_enter(current, uid):
                return current
        except OSError:
            pass
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def readable_by_others(path: str) -> bool:
    """Whether a uid that is neither owner nor in the group could list or read ``path``."""
    try:
        return bool(os.stat(path).st_mode & stat.S_IROTH)
    except OSError:
        return False


def hide_from_sandbox(path: str) -> bool:
    """Make ``path`` (a bundle or the judge's cache) unreachable for the sandbox uid: drop the
    "other" permission bits of the folder itself, which closes everything below it.  True if
    it had to be changed."""
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        return False
    if not mode & 0o007:
        return False
    os.chmod(path, mode & ~0o007)
    return True


def hide_judge_files(bundle_root, uid: int) -> None:
    """The bundle and the judge's disk cache, out of the sandbox uid's reach."""
    from judge.problem.cache import cache_root

    for path in (str(bundle_root), str(cache_root())):
        hide_from_uid(path, uid)
