"""A uid of the run's own for mode reduced: chosen at random, held by a lock no learner can touch, given up while
a run's processes outlive it.

RLIMIT_NPROC counts per uid across the whole kernel, and every container sees
only its own /etc/passwd and /proc: two grader containers on one host that both
took "the first free uid from 62000" shared one, so a learner forking in one
failed a correct submission in the other.  A uid drawn at random from the
hundreds of millions the user namespace maps (and not seen in use: accounts,
processes) makes that a one-in-a-hundred-million chance per pair of zygotes.

Within one container, zygotes coordinate through lock files in a folder only
root may enter (:func:`lock_folder`): a learner's uid can neither plant a file
where a lock goes nor read which uids are taken.

A run whose processes outlive SIGKILL (uninterruptible sleep) leaves its uid
*quarantined* (:class:`UidPool`): the zygote takes a fresh uid for the next
run and keeps the old one's lock until the kernel has ended them.
"""

from __future__ import annotations

import errno
import fcntl
import os
import stat

#: Uids drawn for runs lie in [FIRST, the namespace's last mapped uid]: above every range distributions give
#: accounts (Debian: system < 1000, users < 60000, dynamic 61184-65519; nobody 65534; subuid ranges start at
#: 100000 and are usually 65536 wide).
FIRST = 1 << 24
LAST = (1 << 31) - 2
DRAWS = 64
LOCK_FOLDERS = ("/run/numpy-judge/uids", "/dev/shm/numpy-judge-uids-root", "/tmp/numpy-judge-uids-root")


def mapped_range() -> tuple[int, int]:
    """The span of uids this user namespace maps, within [FIRST, LAST]; raises OSError where none is that high
    (a rootless engine's container maps 65536 uids: the draw then uses 100000.. of what it maps)."""
    spans = []
    try:
        with open("/proc/self/uid_map", encoding="ascii") as f:
            for line in f:
                inside, _, count = (int(x) for x in line.split())
                spans.append((inside, inside + count - 1))
    except (OSError, ValueError):
        spans = [(0, LAST)]
    best = max(spans, key=lambda s: s[1] - s[0])
    low, high = max(best[0], FIRST), min(best[1], LAST)
    if high - low < 1024:
        low, high = max(best[0], 100000), best[1]
    if high - low < 16:
        raise OSError(errno.ERANGE, f"the user namespace maps no free range of uids ({spans})")
    return low, high


def uids_in_use() -> set[int]:
    """Uids of accounts (/etc/passwd) and of every process this kernel shows us."""
    used = set()
    try:
        with open("/etc/passwd", encoding="utf-8", errors="replace") as f:
            for line in f:
                parts = line.split(":")
                if len(parts) > 2 and parts[2].isdigit():
                    used.add(int(parts[2]))
    except OSError:
        pass
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                used.add(os.stat(f"/proc/{pid}").st_uid)
            except OSError:
                pass
    return used


def lock_folder() -> str:
    """A folder for uid locks that root owns and only root may enter, created if needed.  A candidate a
    learner planted (another owner, a symlink, open permissions) is skipped."""
    me = os.geteuid()
    for folder in LOCK_FOLDERS:
        try:
            os.makedirs(folder, mode=0o700, exist_ok=True)
            st = os.lstat(folder)
        except OSError:
            continue
        if stat.S_ISDIR(st.st_mode) and st.st_uid == me and stat.S_IMODE(st.st_mode) & 0o077 == 0:
            return folder
    raise OSError("no folder for the sandbox uid locks that only root can enter "
                  f"(tried {', '.join(LOCK_FOLDERS)})")


def _prune_stale_locks(folder: str, at_most: int = 256) -> None:
    """Remove lock files no zygote holds any more (a zygote killed before it could remove its own)."""
    try:
        names = [n for n in os.listdir(folder) if n.endswith(".lock")][:at_most]
    except OSError:
        return
    for name in names:
        path = os.path.join(folder, name)
        try:
            fd = os.open(path, os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            os.unlink(path)  # unlinked while locked: a zygote opening it now locks a file nobody can find
        except OSError:
            pass
        finally:
            os.close(fd)


class UidClaim:
    """One uid, held by an exclusive lock on its file until :meth:`release`."""

    def __init__(self, uid: int, fd: int, path: str) -> None:
        self.uid = uid
        self.fd = fd
        self.path = path

    def release(self) -> None:
        try:
            os.unlink(self.path)
        except OSError:
            pass
        os.close(self.fd)


def claim(exclude: set[int] | frozenset[int] = frozenset()) -> UidClaim:
    """A uid drawn at random from :func:`mapped_range`, not in use, not in ``exclude``, locked in
    :func:`lock_folder`."""
    folder = lock_folder()
    _prune_stale_locks(folder)
    low, high = mapped_range()
    used = uids_in_use() | set(exclude)
    for _ in range(DRAWS):
        uid = low + int.from_bytes(os.urandom(8), "little") % (high - low + 1)
        if uid in used:
            continue
        path = os.path.join(folder, f"{uid}.lock")
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            same = os.stat(path, follow_symlinks=False).st_ino == os.fstat(fd).st_ino
        except OSError:
            same = False
        if not same:  # locked elsewhere, or pruned as stale between our open and our lock
            os.close(fd)
            continue
        return UidClaim(uid, fd, path)
    raise OSError(f"no free uid found in {DRAWS} draws from {low}..{high}")


def held_elsewhere(uid: int) -> bool:
    """Whether ``uid`` may still be in use by a zygote here: True for any uid outside the drawn range (never
    ours to judge), else whether its lock file is locked."""
    if uid < FIRST:
        return True
    try:
        fd = os.open(os.path.join(lock_folder(), f"{uid}.lock"), os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except FileNotFoundError:
        return False
    except OSError:
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        return False
    except OSError:
        return True
    finally:
        os.close(fd)


class UidPool:
    """The zygote's current uid, and the uids it gave up while processes of theirs were still alive."""

    def __init__(self) -> None:
        self.current = claim()
        self.quarantined: list[UidClaim] = []

    @property
    def uid(self) -> int:
        return self.current.uid

    def quarantine(self) -> None:
        """Processes of the current uid survived SIGKILL: runs take a new uid; the old one stays locked."""
        self.quarantined.append(self.current)
        self.current = claim(exclude={c.uid for c in self.quarantined})

    def release_free(self) -> None:
        """Give back each quarantined uid that no process uses any more (numbers read from /proc only)."""
        if not self.quarantined:
            return
        used = uids_in_use()
        for held in [c for c in self.quarantined if c.uid not in used]:
            held.release()
            self.quarantined.remove(held)
