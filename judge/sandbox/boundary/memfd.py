"""Sealed memory files: how inputs reach the sandbox without being changeable by anyone.

Both the prepared bundle (:mod:`judge.problem.inputs`) and a cold start's early
run (:mod:`judge.grading.run_plan`) make their input file this way; this module imports
nothing heavy, so the early run can use it before numpy is loaded.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

READ_ONLY_SEALS = fcntl.F_SEAL_WRITE | fcntl.F_SEAL_GROW | fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_SEAL


def create(name: str, size: int) -> int:
    """A new memfd of ``size`` zero bytes that can be sealed later (close-on-exec)."""
    fd = os.memfd_create(name, os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
    try:
        os.ftruncate(fd, size)
    except OSError:
        os.close(fd)
        raise
    return fd


def fill_from(fd: int, path: Path | int, size: int) -> None:
    """Copy the first ``size`` bytes of ``path`` (or of the open file ``path``) into ``fd`` (in the kernel:
    no Python buffer)."""
    if isinstance(path, int):
        _copy(fd, path, size, f"file descriptor {path}")
        return
    with open(path, "rb") as src:
        _copy(fd, src.fileno(), size, str(path))


def _copy(fd: int, src: int, size: int, name: str) -> None:
    copied = 0
    while copied < size:
        sent = os.sendfile(fd, src, copied, size - copied)
        if sent == 0:
            raise OSError(f"{name} is shorter than {size} bytes")
        copied += sent


def seal_read_only(fd: int) -> None:
    """No write, grow or shrink from now on, by anyone holding the file (the seals cannot be removed)."""
    fcntl.fcntl(fd, fcntl.F_ADD_SEALS, READ_ONLY_SEALS)


def sealed_bytes(name: str, data: bytes) -> int:
    """A sealed memfd holding ``data`` (e.g. a learner's source on its way to the run that alone reads it)."""
    fd = create(name, len(data))
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        seal_read_only(fd)
    except OSError:
        os.close(fd)
        raise
    return fd


def sealed_copy(name: str, path: Path | int, size: int) -> int:
    """A sealed memfd holding ``path``'s bytes (or the open file ``path``'s): raises OSError when the file is
    missing or shorter."""
    fd = create(name, size)
    try:
        fill_from(fd, path, size)
        seal_read_only(fd)
    except OSError:
        os.close(fd)
        raise
    return fd
