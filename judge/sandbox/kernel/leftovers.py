"""What a run leaves behind, found and removed: processes, files, System V IPC objects.

Run by the run's supervisor (a process forked for this one run, which exits
afterwards), never by the zygote: the names of a learner's files are the
learner's bytes, and the zygote, which every later run is forked from, must
never hold any.  Everything here is bounded and iterative, because the
learner shapes what it walks: a 1,500-level folder chain is flattened, not
recursed into (no RecursionError, no path longer than PATH_MAX), and a
budget of entries and seconds caps the work (what is left is reported, and
lives only in folders no later run can reach: the run's own working folder,
or the uid's entries in shared ones).

Mode reduced needs all of it (a uid of the run's own, no namespaces); the
other modes' runs end with their pid, mount and IPC namespaces, and only
their orphans (reparented to the supervisor, a subreaper) are killed here.
"""

from __future__ import annotations

import ctypes
import os
import signal
import stat
import time
from dataclasses import dataclass

from judge.sandbox.kernel.procfs import process_tree

#: Folders anyone may write on most systems (the clean-up also walks what :func:`writable_folders` finds).
SHARED_WRITABLE = ("/tmp", "/var/tmp", "/dev/shm", "/run/lock", "/var/lock", "/dev/mqueue")
REMOVE_BUDGET_ENTRIES = 2_000_000
REMOVE_BUDGET_SECONDS = 20.0
KILL_WAIT_SECONDS = 2.0


@dataclass
class Removal:
    """What removing a run's files did."""

    entries: int = 0  #: files, links and folders removed
    left: int = 0  #: entries the budget did not reach (0: everything is gone)


# --------------------------------------------------------------------------- processes

def reap_children() -> None:
    """Reap every ended child (a subreaper's orphans included)."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def kill_descendants(timeout: float = KILL_WAIT_SECONDS, proc: int | None = None,
                     exclude: set[int] | frozenset[int] = frozenset()) -> tuple[int, set[int]]:
    """SIGKILL and reap every descendant of this process but ``exclude`` (a subreaper: a run's orphans end up as
    its children) until none is left or ``timeout`` passes: (how many there were, the pids still there).

    Processes still there after SIGKILL are in uninterruptible sleep (a ``sync()`` of a large write, say): they
    end when the kernel lets them.  Nothing here raises for them; the caller decides (mode reduced gives the uid
    up until they are gone).  Only pids are read, from /proc/<pid>/task/<tid>/children."""
    left = 0
    deadline = time.monotonic() + timeout
    me = os.getpid()
    while True:
        reap_children()
        others = [p for p in process_tree(me, proc) if p != me and p not in exclude]
        left = max(left, len(others))
        if not others:
            return left, set()
        if time.monotonic() > deadline:
            return left, set(others)
        for other in others:
            try:
                os.kill(other, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.002)


def kill_uid(uid: int) -> None:
    """SIGKILL every process of ``uid``: kill(-1) from a child that became ``uid`` reaches every process the uid
    may signal, whatever its session or parent (the caller then reaps them: :func:`kill_descendants`)."""
    pid = os.fork()
    if pid == 0:
        try:
            os.setgroups([])
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)
            os.kill(-1, signal.SIGKILL)  # every process this uid may signal, never this one
        finally:
            os._exit(0)
    os.waitpid(pid, 0)


def processes_of(uid: int) -> list[int]:
    """Pids of the processes ``uid`` owns that this process can see (numbers only)."""
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                if os.stat(f"/proc/{name}").st_uid == uid:
                    found.append(int(name))
            except OSError:
                continue
    return found


# --------------------------------------------------------------------------- System V IPC

_IPC_RMID = 0
_SYSV = (("shm", "shmctl", 1, (7, 9)), ("msg", "msgctl", 1, (7, 9)), ("sem", "semctl", 1, (4, 6)))


def remove_ipc_of(uid: int) -> int:
    """Remove the System V shared memory segments, message queues and semaphore sets ``uid`` owns or created
    (from /proc/sysvipc): a segment outlives its processes, and in a memory-limited container it holds memory
    the next run needs.  How many there were.  The removal is done as ``uid`` itself, in a child: root in a
    container lacks CAP_SYS_ADMIN, which removing another user's object needs; its owner does not."""
    found: list[tuple[str, int]] = []
    for table, call, id_column, (uid_column, cuid_column) in _SYSV:
        try:
            with open(f"/proc/sysvipc/{table}", encoding="ascii", errors="replace") as f:
                rows = f.read().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            cols = row.split()
            try:
                ident, owner, creator = int(cols[id_column]), int(cols[uid_column]), int(cols[cuid_column])
            except (IndexError, ValueError):
                continue
            if uid in (owner, creator):
                found.append((call, ident))
    if not found:
        return 0
    pid = os.fork()
    if pid == 0:
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            os.setgroups([])
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)
            for call, ident in found:
                getattr(libc, call)(*((ident, 0, _IPC_RMID) if call == "semctl" else (ident, _IPC_RMID, None)))
        finally:
            os._exit(0)
    os.waitpid(pid, 0)
    return len(found)


# --------------------------------------------------------------------------- files

class _Budget:
    """At most ``entries`` removals, for at most ``seconds``; once spent, it stays spent."""

    def __init__(self, entries: int, seconds: float) -> None:
        self.entries = entries
        self.deadline = time.monotonic() + seconds
        self.spent = 0
        self.over = False

    def take(self) -> bool:
        self.spent += 1
        if self.spent > self.entries or (self.spent % 256 == 0 and time.monotonic() > self.deadline):
            self.over = True
        return not self.over


def remove_tree(path: str, budget: _Budget | None = None, removal: Removal | None = None) -> Removal:
    """Remove ``path`` and everything beneath it without recursion, following no symlink.

    Folders met below the top are moved up into the top folder (renameat within one file system) before they are
    emptied, so at most two folders are open at once whatever the depth and no path grows.  ``path`` itself must
    be a folder (a file or link is just unlinked)."""
    budget = budget or _Budget(REMOVE_BUDGET_ENTRIES, REMOVE_BUDGET_SECONDS)
    removal = removal or Removal()
    parent, name = os.path.split(path.rstrip(os.sep)) if path != os.sep else (None, None)
    if not parent or not name:
        return removal
    try:
        parent_fd = os.open(parent, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return removal
    try:
        _remove_entry(parent_fd, name, budget, removal)
    finally:
        os.close(parent_fd)
    return removal


def _remove_entry(parent_fd: int, name: str, budget: _Budget, removal: Removal) -> None:
    """Remove ``name`` in the folder ``parent_fd``: unlink it, or flatten and empty it if it is a folder."""
    try:
        st = os.stat(name, dir_fd=parent_fd, follow_symlinks=False)
    except OSError:
        return
    if not stat.S_ISDIR(st.st_mode):
        if budget.take():
            try:
                os.unlink(name, dir_fd=parent_fd)
                removal.entries += 1
            except OSError:
                removal.left += 1
        else:
            removal.left += 1
        return
    try:
        top = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=parent_fd)
    except OSError:
        removal.left += 1
        return
    try:
        _empty_flat(top, budget, removal)
    finally:
        os.close(top)
    try:
        os.rmdir(name, dir_fd=parent_fd)
        removal.entries += 1
    except OSError:
        removal.left += 1


def _entries(folder: int) -> list[tuple[str, bool]] | None:
    """(name, is a folder) of each entry of the open folder ``folder``; None when it cannot be listed."""
    try:
        with os.scandir(folder) as entries:
            return [(e.name, e.is_dir(follow_symlinks=False)) for e in entries]
    except OSError:
        return None


def _unlink(folder: int, name: str, removal: Removal) -> bool:
    try:
        os.unlink(name, dir_fd=folder)
    except OSError:
        return False
    removal.entries += 1
    return True


def _rmdir(folder: int, name: str, removal: Removal) -> bool:
    try:
        os.rmdir(name, dir_fd=folder)  # only an empty folder goes
    except OSError:
        return False
    removal.entries += 1
    return True


def _lift(top: int, name: str, budget: _Budget, removal: Removal) -> bool | None:
    """Unlink the files of ``top``/``name`` and move its folders up into ``top`` under fresh names: whether
    anything changed; None when the budget ran out."""
    try:
        sub = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=top)
    except OSError:
        return False
    changed = False
    try:
        children = _entries(sub) or []
        for child, child_is_dir in children:
            if not budget.take():
                removal.left += len(children)
                return None
            if not child_is_dir:
                changed |= _unlink(sub, child, removal)
                continue
            try:
                os.rename(child, f".judge-rm-{os.urandom(8).hex()}", src_dir_fd=sub, dst_dir_fd=top)
                changed = True
            except OSError:
                continue
    finally:
        os.close(sub)
    return changed


def _empty_flat(top: int, budget: _Budget, removal: Removal) -> None:
    """Empty the folder ``top``: files are unlinked, and every folder found at any depth is first renamed into
    ``top`` itself under a fresh name (:func:`_lift`), so the walk stays one level deep."""
    while True:
        names = _entries(top)
        if names is None:
            removal.left += 1
            return
        if not names:
            return
        changed = False
        for name, is_dir in names:
            if not budget.take():
                removal.left += len(names)
                return
            if not is_dir:
                changed |= _unlink(top, name, removal)
            elif _rmdir(top, name, removal):
                changed = True
            else:
                lifted = _lift(top, name, budget, removal)
                if lifted is None:
                    return
                changed |= lifted
        if not changed:  # nothing here can be removed (a folder this process may not enter): give up on it
            removal.left += len(names)
            return


def remove_files_of(uid: int, folders: tuple[str, ...] | list[str], removal: Removal | None = None,
                    budget: _Budget | None = None) -> Removal:
    """Remove every entry ``uid`` owns directly in each of ``folders`` (a folder it owns goes whole, whatever
    it holds)."""
    removal = removal or Removal()
    budget = budget or _Budget(REMOVE_BUDGET_ENTRIES, REMOVE_BUDGET_SECONDS)
    for folder in folders:
        try:
            fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError:
            continue
        try:
            with os.scandir(fd) as entries:
                owned = [e.name for e in entries if _owner(e) == uid]
            for name in owned:
                _remove_entry(fd, name, budget, removal)
        except OSError:
            continue
        finally:
            os.close(fd)
    return removal


def _owner(entry: os.DirEntry) -> int | None:
    try:
        return entry.stat(follow_symlinks=False).st_uid
    except OSError:
        return None
