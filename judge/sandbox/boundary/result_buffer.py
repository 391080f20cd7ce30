"""The shared memory a worker's sandboxed runs write their results into, reused across runs and zeroed between them.

One memfd per worker, sized for the largest problem seen, kept mapped (no new
memfd or mapping per run).  Every run faults in only the pages it writes: a
one-shot ``judge grade`` never pays for a whole buffer, and a warm judge holds
none of the last run's pages once they are scrubbed.

A run may write anywhere in its mapping (and ``mremap`` it to the whole file),
so whatever a run wrote is another learner's data for the next one.  Every run
after the first therefore starts on a buffer of zeros: the judge zeroes all of
it once the last run's slots are judged (:meth:`ResultBuffer.scrub_in_background`,
off the verdict's path: the memfd's pages are punched out, so every mapping
reads zeros and the judge's resident set does not keep the buffer's size), and
:meth:`ResultBuffer.start_run` waits for that (or zeroes it there) before the
next run -- or, for a backend whose learner process waits at a gate until the
judge says the buffer is clear (the process backend: ``gates_runs``),
:meth:`ResultBuffer.start_run` with ``deferred`` leaves that wait to
:meth:`ResultBuffer.clear`, which the backend calls once the run's request is on
its way and before it opens the gate: a queued submission's sandbox is then set
up while the last one's scrub finishes, and no learner code runs before it has.
A submission's second run (its counterexample search) is no exception: the
judge starts the scrub as soon as the grading run is judged, and the search's
run waits for it like any other, so it cannot read what the grading run wrote
(which may be every case's inputs, hidden ones included).  The child reaches
the file only through an inherited mapping (its descriptors are all closed),
and the file is sealed against shrinking so the judge's mapping can never
fault.
"""

from __future__ import annotations

import ctypes
import fcntl
import mmap
import os
import threading

SCRUB_CHUNK = 8 << 20  #: bytes zeroed between two looks at a cancellation (a closing buffer stops within ~1 ms)


_PUNCH_HOLE = 0x02 | 0x01  #: FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE
_libc = ctypes.CDLL(None, use_errno=True)


def _punch(fd: int, start: int, length: int) -> bool:
    """Give the memfd's pages in [start, start+length) back to the kernel: every mapping of them (the judge's,
    a finished run's) reads zeros from then on, and the judge's resident set does not grow by the buffer's size
    as a memset of it would (~100 MB for the largest suite).  False where the kernel refuses (then memset)."""
    fallocate = _libc.fallocate
    fallocate.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_long, ctypes.c_long]
    return fallocate(fd, _PUNCH_HOLE, start, length) == 0


def _zero(buffer: mmap.mmap, stop: threading.Event | None = None, fd: int | None = None) -> bool:
    """Zero ``buffer`` chunk by chunk (its memfd's pages punched out, or memset with the GIL released); False if
    ``stop`` was set first."""
    view = (ctypes.c_char * len(buffer)).from_buffer(buffer)
    try:
        base = ctypes.addressof(view)
        for start in range(0, len(buffer), SCRUB_CHUNK):
            if stop is not None and stop.is_set():
                return False
            length = min(SCRUB_CHUNK, len(buffer) - start)
            if fd is None or not _punch(fd, start, length):
                ctypes.memset(base + start, 0, length)
        return True
    finally:
        del view


class ResultBuffer:
    def __init__(self, size: int) -> None:
        self.size = max(size, mmap.PAGESIZE)
        self.fd = os.memfd_create("judge-results", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
        os.ftruncate(self.fd, self.size)
        fcntl.fcntl(self.fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_SEAL)
        self.map = mmap.mmap(self.fd, self.size, access=mmap.ACCESS_WRITE)
        self.runs = 0  #: runs started on this buffer (start_run)
        self.dirty = False  #: a run has written it since it was last zeroed
        self._scrub: threading.Thread | None = None
        self._stop = threading.Event()
        self._cleared = threading.Event()  #: no clear() pending: the buffer holds only the current run's bytes
        self._cleared.set()

    @property
    def clear_pending(self) -> bool:
        """A run was started with ``deferred``: :meth:`clear` must come before any learner code runs."""
        return not self._cleared.is_set()

    @property
    def cleared(self) -> bool:
        """No :meth:`clear` pending: whatever the buffer holds is the current run's (the judge may read slots)."""
        return self._cleared.is_set()

    def start_run(self, slot_offsets: list[int] | None = None, deferred: bool = False) -> None:
        """Ready the buffer for a run, any run (a submission's, or its counterexample search's): nothing in it
        but zeros.  A fresh buffer is (the kernel zeroed it); a used one was zeroed in the background after its
        last run was judged, or is zeroed now.  ``slot_offsets`` is kept for callers that name the slots; every
        byte is cleared, not only their headers.  ``deferred`` (a run on a backend that gates its runs): nothing
        is waited for or zeroed here; the backend calls :meth:`clear` before the learner's process may start,
        and until then :attr:`cleared` is False."""
        if deferred:
            self._cleared.clear()
            return
        self._start()

    def clear(self) -> None:
        """The deferred part of :meth:`start_run`: wait for the last run's scrub (or zero the buffer now); from
        here on the buffer holds only this run's bytes.  Nothing to do when no run was deferred."""
        if self.clear_pending:
            self._start()

    def _start(self) -> None:
        self._join_scrub()
        if self.dirty:
            _zero(self.map, fd=self.fd)
        self.dirty = True
        self.runs += 1
        self._cleared.set()

    def scrub_in_background(self) -> None:
        """The last run's slots are judged: zero the buffer in a thread (the next :meth:`start_run` waits for
        it), so that the next run, whoever's it is, sees none of this one's bytes."""
        if not self.dirty or self._scrub is not None:
            return

        def scrub() -> None:
            if _zero(self.map, self._stop, self.fd):
                self.dirty = False

        self._scrub = threading.Thread(target=scrub, name="judge-result-scrub", daemon=True)
        self._scrub.start()

    def _join_scrub(self) -> None:
        if self._scrub is not None:
            self._scrub.join()
            self._scrub = None

    def close(self) -> None:
        self._stop.set()  # a buffer nobody will use again is not worth zeroing
        self._join_scrub()
        try:
            self.map.close()
        except BufferError:
            pass  # a view is still alive somewhere; the mapping goes with it
        os.close(self.fd)


def buffer_for(owner: object, size: int) -> ResultBuffer:
    """The owner's buffer, replaced by a larger one when a bigger problem needs it."""
    current: ResultBuffer | None = getattr(owner, "result_buffer", None)
    if current is None or current.size < size:
        if current is not None:
            current.close()
        current = ResultBuffer(size)
        owner.result_buffer = current  # type: ignore[attr-defined]
    return current
