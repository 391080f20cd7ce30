"""A judging process's one heartbeat: every :data:`BEAT_SECONDS`, one thread says to the store that it lives.

Two things must be said, at the same pace and by the same process: the claims its running copies hold
(:mod:`judge.service.claims`: a claim that stops beating counts as a copy that died) and, for ``judge worker``,
its slots, busy and idle (:mod:`judge.service.worker_slots`: ``/metrics`` adds them up).  They were two threads
waking every 5 s each; one thread does both, and a process that dies stops both at once, as it should.
"""

from __future__ import annotations

import logging
import threading

from judge.service.claims import Claims
from judge.service.store import Store
from judge.service.worker_slots import SlotRegistry

log = logging.getLogger("judge.service")

BEAT_SECONDS = 5.0


class WorkerBeat:
    """The claims this process's copies hold (:meth:`hold`, :meth:`release`) and, given ``name`` and ``slots``,
    its slots with the jobs in hand (``with beat:`` around each job), kept alive by one thread."""

    def __init__(self, store: Store, name: str | None = None, slots: int = 0) -> None:
        self.claims = Claims(store)
        self.registry = SlotRegistry(store) if name is not None else None
        self.name, self.slots = name, slots
        self._held: set[str] = set()
        self._busy = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # -- jobs in hand (the fleet's busy slots) --------------------------------------------------
    def __enter__(self) -> WorkerBeat:
        with self._lock:
            self._busy += 1
        return self

    def __exit__(self, *_exc: object) -> None:
        with self._lock:
            self._busy -= 1

    # -- claims -------------------------------------------------------------------------------------
    def hold(self, token: str) -> None:
        with self._lock:
            self._held.add(token)
        self.start()  # a claim held before the process said it was ready is kept alive all the same

    def release(self, token: str) -> None:
        with self._lock:
            self._held.discard(token)

    # -- the thread ---------------------------------------------------------------------------------
    def start(self) -> None:
        with self._lock:
            if self._thread is None and not self._stop.is_set():
                self._thread = threading.Thread(target=self._loop, name="judge-beat", daemon=True)
                self._thread.start()

    def beat(self) -> None:
        """One beat: the slots (if any), then the claims; the store away is a warning, the next beat retries."""
        with self._lock:
            held, busy = sorted(self._held), self._busy
        if self.registry is not None and self.name is not None:
            try:
                self.registry.beat(self.name, self.slots, busy)
            except Exception as exc:  # noqa: BLE001 - the store away: beat again later
                log.warning("heartbeat: the store is unreachable (%s)", type(exc).__name__)
        try:
            self.claims.beat(held)
        except Exception as exc:  # noqa: BLE001 - the store away: beat again later
            log.warning("claim heartbeat: the store is unreachable (%s)", type(exc).__name__)

    def _loop(self) -> None:
        while True:
            self.beat()
            if self._stop.wait(BEAT_SECONDS):
                return

    def stop(self) -> None:
        """Stop beating; the slots leave the fleet at once (claims left behind look dead after a while)."""
        self._stop.set()
        if self.registry is not None and self.name is not None:
            try:
                self.registry.leave(self.name)
            except Exception:  # noqa: BLE001 - the store away: the row goes stale and stops counting
                pass
