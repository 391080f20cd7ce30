"""A folder only this user (or root) can have written: where the judge keeps what it trusts later.

The judge's disk caches hold what decides a verdict: expected outputs, input bytes, run plans, fetched bundle
versions, the wheels a package ships.  Whoever can write one of them can make a wrong answer pass (or run
their code as the grader: a bundle's ``reference.py``, a wheel).  ``mkdir(exist_ok=True)`` takes a folder
someone else made, so a cache is used only when :func:`private_folder` finds:

* the folder itself: a real folder (not a link), owned by this user or root, writable by nobody else (it is
  then narrowed to ``0700`` when this user owns it, so no other local user, nor a sandboxed run's uid, reads
  expected outputs either);
* every folder above it: owned by this user or root, and writable by others only with the sticky bit (``/tmp``),
  so nobody else can rename it away and put their own in its place.

A shared folder such as ``/tmp`` or a container's tmpfs (``1777``) is not private itself; the caller then keeps
its files in a folder of its own inside it (:func:`own_folder_in`), checked the same way, so a folder another
user made there under the expected name is refused, not used.

Standard library only: a cold start checks its cache before the heavy imports; a folder found private is
remembered for the process (nobody else can change that afterwards).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

_TRUSTED_OWNERS = {0}
_known: set[str] = set()


class UntrustedFolder(OSError):
    """A folder the judge will not keep trusted files in; the message says which folder and why."""


def _owners() -> set[int]:
    return _TRUSTED_OWNERS | {os.geteuid()}


def _check_above(folder: Path) -> None:
    """Every folder above ``folder`` (links followed) is owned by root or this user and nobody else can
    replace what it holds."""
    real = Path(os.path.realpath(folder.parent))
    for above in (real, *real.parents):
        st = os.lstat(above)
        if st.st_uid not in _owners():
            raise UntrustedFolder(f"{folder}: {above} above it belongs to uid {st.st_uid}, who could replace it")
        if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH) and not st.st_mode & stat.S_ISVTX:
            raise UntrustedFolder(f"{folder}: {above} above it is writable by others (mode "
                                  f"{stat.S_IMODE(st.st_mode):o}, no sticky bit), who could replace it")


def _check(folder: Path) -> None:
    st = os.lstat(folder)
    if stat.S_ISLNK(st.st_mode) or not stat.S_ISDIR(st.st_mode):
        raise UntrustedFolder(f"{folder}: not a folder of its own (a link or a file)")
    if st.st_uid not in _owners():
        raise UntrustedFolder(f"{folder}: belongs to uid {st.st_uid}, not to this user ({os.geteuid()}) or root")
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        raise UntrustedFolder(f"{folder}: writable by others (mode {stat.S_IMODE(st.st_mode):o})")
    _check_above(folder)
    if st.st_uid == os.geteuid() and st.st_mode & 0o077:
        try:
            os.chmod(folder, 0o700)
        except OSError:
            pass  # a read-only image: nobody else could write it either


def private_folder(path: str | Path) -> Path:
    """``path``, created ``0700`` if missing, once it is checked private (see the module's docstring); raises
    :class:`UntrustedFolder` (an ``OSError``) naming the folder and the reason, or the ``OSError`` of making it."""
    folder = Path(path).absolute()
    if str(folder) in _known:
        return folder
    folder.parent.mkdir(parents=True, exist_ok=True)
    _check_above(folder)  # before making anything in a folder that is not ours to write
    try:
        os.mkdir(folder, 0o700)
    except FileExistsError:
        pass
    _check(folder)
    _known.add(str(folder))
    return folder


def own_folder_in(shared: str | Path) -> Path:
    """This user's private folder inside ``shared``: ``shared`` itself when it is private, else
    ``shared/uid-<euid>`` (for a ``1777`` tmpfs or ``/tmp``), checked the same way."""
    try:
        return private_folder(shared)
    except UntrustedFolder:
        return private_folder(Path(shared) / f"uid-{os.geteuid()}")
