"""A shared page where the harness notes which case it is in and since when.

The supervisor reads it to apply per-case wall limits and to blame the right
case when the process dies (the container backend: :class:`ProgressFile`).  The learner's code can scribble on it,
which can only move the blame between its own cases: the total wall and CPU limits are
enforced from the supervisor's own clock and the kernel's records.
"""

from __future__ import annotations

import mmap
import os
import struct
import time

_LAYOUT = struct.Struct("<qqq")  # case index (-1 = none), start ns (CLOCK_MONOTONIC), phase
PAGE_BYTES = mmap.PAGESIZE  #: size of the page (and of a progress file)

PHASE_SETUP = 0
PHASE_LOADING = 1
PHASE_RUNNING = 2
PHASE_DONE = 3


class ProgressPage:
    """An anonymous shared mapping inherited across fork by supervisor and child
    (or, in a container, a mapping of the shared progress file: :meth:`over_file`)."""

    def __init__(self, shared: mmap.mmap | None = None) -> None:
        self._map = shared if shared is not None else mmap.mmap(-1, PAGE_BYTES, flags=mmap.MAP_SHARED)
        self.set(-1, PHASE_SETUP)

    @classmethod
    def over_file(cls, path: str) -> ProgressPage:
        fd = os.open(path, os.O_RDWR)
        try:
            return cls(mmap.mmap(fd, PAGE_BYTES, access=mmap.ACCESS_WRITE))
        finally:
            os.close(fd)

    def set(self, case: int, phase: int) -> None:
        _LAYOUT.pack_into(self._map, 0, case, time.monotonic_ns(), phase)

    def read(self) -> tuple[int, int, int]:
        """(case index, started at monotonic ns, phase)."""
        return _LAYOUT.unpack_from(self._map, 0)

    def close(self) -> None:
        self._map.close()


class ProgressFile:
    """The trusted side's reader of a progress file the sandbox maps (the container backend's
    bind-mounted file): read with pread, never mapped, because the learner's process can open the
    file and truncate it, and a mapping of a truncated file faults (SIGBUS) in the judge's process.
    Bytes that are gone read as zeros: phase SETUP, so no per-case limit applies, while the total
    wall limit still does."""

    def __init__(self, path: str) -> None:
        self._fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)

    def read(self) -> tuple[int, int, int]:
        """(case index, started at monotonic ns, phase), as :meth:`ProgressPage.read`."""
        return _LAYOUT.unpack(os.pread(self._fd, _LAYOUT.size, 0).ljust(_LAYOUT.size, b"\0"))

    def close(self) -> None:
        os.close(self._fd)
