"""A shared page where the harness notes which case it is in and since when.

The supervisor reads it to apply per-case wall limits and to blame the right
case when the process dies.  The learner's code can scribble on it, which can
only move the blame between its own cases: the total wall and CPU limits are
enforced from the supervisor's own clock and the kernel's records.
"""

from __future__ import annotations

import mmap
import os
import struct
import time

_LAYOUT = struct.Struct("<qqq")  # case index (-1 = none), start ns (CLOCK_MONOTONIC), phase

PHASE_SETUP = 0
PHASE_LOADING = 1
PHASE_RUNNING = 2
PHASE_DONE = 3


class ProgressPage:
    """An anonymous shared mapping inherited across fork by supervisor and child
    (or, in a container, a mapping of the shared progress file: :meth:`over_file`)."""

    def __init__(self, shared: mmap.mmap | None = None) -> None:
        self._map = shared if shared is not None else mmap.mmap(-1, mmap.PAGESIZE, flags=mmap.MAP_SHARED)
        self.set(-1, PHASE_SETUP)

    @classmethod
    def over_file(cls, path: str) -> "ProgressPage":
        fd = os.open(path, os.O_RDWR)
        try:
            return cls(mmap.mmap(fd, mmap.PAGESIZE, access=mmap.ACCESS_WRITE))
        finally:
            os.close(fd)

    def set(self, case: int, phase: int) -> None:
        _LAYOUT.pack_into(self._map, 0, case, time.monotonic_ns(), phase)

    def read(self) -> tuple[int, int, int]:
        """(case index, started at monotonic ns, phase)."""
        return _LAYOUT.unpack_from(self._map, 0)

    def close(self) -> None:
        self._map.close()
