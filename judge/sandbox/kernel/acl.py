"""POSIX access ACLs: keep one uid out of a path without changing anyone else's access.

Mode reduced gives each zygote a uid of its own; where Landlock cannot confine
its runs (:mod:`judge.sandbox.kernel.landlock`), the paths the judge names (the bundle,
the cache, a checkout's history) get an ACL entry that gives that uid no access
(:func:`hide_from_uid`).  Entries of uids no zygote holds any more are pruned as
new ones are added, so a bundle folder's ACL does not grow with every cold start.
On a read-only root nothing can be changed: the path's own permissions must
already keep the uid out (:func:`denied_by`), else the run is refused with a
line saying what to change when the image is built.
"""

from __future__ import annotations

import errno
import os
import stat
import struct
from collections.abc import Callable

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


def deny_uid(path: str, uid: int, stale: Callable[[int], bool] | None = None) -> None:
    """Add a POSIX ACL entry giving ``uid`` no access to ``path`` (a folder: nothing below it is
    reachable then), leaving everyone else's access as it was.  Raises OSError where the file
    system has no ACLs.  When the ACL is full (ENOSPC: an ext4 ACL holds ~500 entries), the
    deny-entries of uids ``stale`` says no zygote holds any more are dropped first."""
    mode = stat.S_IMODE(os.stat(path).st_mode)
    entries = _acl_entries(path, mode)
    if entries.get((_ACL_USER, uid)) == 0:
        return
    entries[(_ACL_USER, uid)] = 0
    try:
        _write_acl(path, entries)
    except OSError as exc:
        if exc.errno not in (errno.ENOSPC, errno.E2BIG) or stale is None:
            raise
        for key in [k for k, perm in entries.items() if k[0] == _ACL_USER and perm == 0 and k[1] != uid
                    and stale(k[1])]:
            del entries[key]
        _write_acl(path, entries)


def set_uid_permissions(path: str, uid: int, perm: int, stale: Callable[[int], bool] | None = None) -> None:
    """Give ``uid`` exactly the rwx bits ``perm`` on ``path`` (a named-user ACL entry; others unchanged)."""
    mode = stat.S_IMODE(os.stat(path).st_mode)
    entries = _acl_entries(path, mode)
    if entries.get((_ACL_USER, uid)) == perm:
        return
    entries[(_ACL_USER, uid)] = perm
    try:
        _write_acl(path, entries)
    except OSError as exc:
        if exc.errno not in (errno.ENOSPC, errno.E2BIG) or stale is None:
            raise
        for key in [k for k in entries if k[0] == _ACL_USER and k[1] != uid and stale(k[1])]:
            del entries[key]
        _write_acl(path, entries)


def allow_uid_again(path: str, uid: int) -> None:
    """Remove ``uid``'s deny-entry from ``path``'s ACL (a zygote giving its uid up); best effort."""
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
        entries = _acl_entries(path, mode)
        if entries.pop((_ACL_USER, uid), None) is not None:
            _write_acl(path, entries)
    except OSError:
        pass


def _write_acl(path: str, entries: dict[tuple[int, int], int]) -> None:
    entries = dict(entries)
    named = [perm for (tag, _), perm in entries.items() if tag in (_ACL_USER, _ACL_GROUP)]
    if named:  # a mask is needed: it covers the group class as it is, and never masks a named entry's bits
        mask = entries.get((_ACL_MASK, _ACL_UNDEFINED_ID), entries[(_ACL_GROUP_OBJ, _ACL_UNDEFINED_ID)])
        for perm in named:
            mask |= perm
        entries[(_ACL_MASK, _ACL_UNDEFINED_ID)] = mask
    raw = struct.pack("<I", _ACL_VERSION) + b"".join(
        struct.pack("<HHI", tag, perm, ident) for (tag, ident), perm in sorted(entries.items()))
    os.setxattr(path, _ACL_XATTR, raw, follow_symlinks=False)


def hide_from_uid(path: str, uid: int, stale: Callable[[int], bool] | None = None) -> str:
    """Make ``path`` (a bundle or the judge's cache) unreachable for ``uid``; what was done.

    Raises :class:`~judge.errors.SandboxUnavailable` (a clear refusal, learner code never runs)
    when nothing can be changed -- a read-only file system -- and nothing already keeps
    ``uid`` out, or when the change itself fails."""
    if not os.path.exists(path):
        return ""
    try:
        deny_uid(path, uid, stale)
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


def permissions(path: str, uid: int, st: os.stat_result | None = None) -> int:
    """The rwx bits (4 read, 2 write, 1 search) ``uid`` has on ``path`` (not following a last symlink), as a run
    in mode reduced has them: gid == uid, no supplementary groups.  Its owner has all (it could give itself the
    permission back)."""
    st = st or os.stat(path, follow_symlinks=False)
    if st.st_uid == uid:
        return 0o7
    mode = stat.S_IMODE(st.st_mode)
    entries = _acl_entries(path, mode) if stat.S_ISDIR(st.st_mode) or stat.S_ISREG(st.st_mode) else \
        {(_ACL_OTHER, _ACL_UNDEFINED_ID): mode & 7, (_ACL_GROUP_OBJ, _ACL_UNDEFINED_ID): (mode >> 3) & 7}
    mask = entries.get((_ACL_MASK, _ACL_UNDEFINED_ID), 7)
    if (_ACL_USER, uid) in entries:
        return entries[(_ACL_USER, uid)] & mask
    if st.st_gid == uid or (_ACL_GROUP, uid) in entries:
        perm = (entries[(_ACL_GROUP_OBJ, _ACL_UNDEFINED_ID)] if st.st_gid == uid else 0) \
            | entries.get((_ACL_GROUP, uid), 0)
        return perm & mask
    return entries[(_ACL_OTHER, _ACL_UNDEFINED_ID)]


def _uid_may_enter(path: str, uid: int) -> bool:
    """Whether ``uid`` could list or search ``path`` (see :func:`permissions`)."""
    return bool(permissions(path, uid, os.stat(path)) & 0o5)


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
