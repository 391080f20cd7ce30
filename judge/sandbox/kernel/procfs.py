"""Reading /proc: a process and its descendants, and a process's resident memory, as the kernel records them.

What both the trusted side's watches (chain/watch.py) and the clean-up after a run (leftovers.py) walk; every
read names a path under an open /proc folder when one is given, for a supervisor whose mount namespace lost
/proc when the sandbox's init switched root.  Bounded: a learner shapes the tree it walks.
"""

from __future__ import annotations

import os


def _read(proc: int | None, path: str) -> bytes:
    fd = os.open(path if proc is not None else "/proc/" + path, os.O_RDONLY, dir_fd=proc)
    try:
        return os.read(fd, 1 << 16)
    finally:
        os.close(fd)


def _list(proc: int | None, path: str) -> list[str]:
    if proc is None:
        return os.listdir("/proc/" + path)
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY, dir_fd=proc)
    try:
        return os.listdir(fd)
    finally:
        os.close(fd)


def status_kib(pid: int, proc: int | None = None) -> tuple[int, int]:
    """(VmRSS, VmHWM) of ``pid`` in KiB from /proc; (0, 0) once it is gone."""
    rss = hwm = 0
    try:
        for line in _read(proc, f"{pid}/status").splitlines():
            if line.startswith(b"VmRSS:"):
                rss = int(line.split()[1])
            elif line.startswith(b"VmHWM:"):
                hwm = int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return rss, hwm


def process_tree(root: int, proc: int | None = None) -> list[int]:
    """``root`` and every descendant, from /proc/<pid>/task/<tid>/children.

    ``proc``: an open /proc folder, for a supervisor whose mount namespace lost /proc when the
    sandbox's init switched root (pivot_root moves every process of the namespace).  The
    sandbox's init is a subreaper (or PID 1 of its namespace), so orphans stay in its tree."""
    found: list[int] = []
    todo = [root]
    while todo and len(found) < 4096:
        pid = todo.pop()
        found.append(pid)
        try:
            tids = _list(proc, f"{pid}/task")
        except OSError:
            continue
        for tid in tids:
            try:
                todo.extend(int(x) for x in _read(proc, f"{pid}/task/{tid}/children").split())
            except (OSError, ValueError):
                continue
    return found
