"""Background delivery with retries: one polling thread, a small pool, exponential backoff.

Shared by callbacks (:mod:`judge.service.callbacks`) and LTI score passback
(:mod:`judge.service.lti.passback`); what is due and how it is sent is theirs, the
delivery state lives in the store (so it survives restarts), and this class only
runs the loop, keeps one attempt per item in flight and computes the backoff.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Hashable
from concurrent.futures import ThreadPoolExecutor

from judge.service.settings import Settings
from judge.service.store import STORE_AWAY

log = logging.getLogger("judge.service")


class Dispatcher:
    """Subclasses implement :meth:`dispatch_due` and call :meth:`send` for each claimed item."""

    name = "judge-delivery"

    def __init__(self, settings: Settings, workers: int = 4) -> None:
        self.settings = settings
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix=self.name)
        self._thread: threading.Thread | None = None
        self._inflight: set[Hashable] = set()
        self._lock = threading.Lock()

    def start(self) -> None:
        self._thread = threading.Thread(target=self._loop, name=self.name, daemon=True)
        self._thread.start()

    def wake(self, _row: dict | None = None) -> None:
        self._wake.set()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._pool.shutdown(wait=False, cancel_futures=True)

    def backoff(self, attempts: int) -> float:
        return min(self.settings.callback_backoff_seconds * (2 ** max(0, attempts - 1)),
                   self.settings.callback_backoff_max_seconds)

    def dispatch_due(self) -> None:
        raise NotImplementedError

    def in_flight(self, key: Hashable) -> bool:
        with self._lock:
            return key in self._inflight

    def send(self, key: Hashable, deliver: Callable[..., None], *args: object) -> None:
        """Run ``deliver(*args)`` on the pool; ``key`` counts as in flight until it returns."""
        with self._lock:
            self._inflight.add(key)

        def run() -> None:
            try:
                deliver(*args)
            finally:
                with self._lock:
                    self._inflight.discard(key)
                self._wake.set()

        self._pool.submit(run)

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                self.dispatch_due()
            except STORE_AWAY as exc:  # the database restarting: one line a poll, not a traceback
                log.warning("%s: the store is unreachable (%s); trying again", self.name, type(exc).__name__)
            except Exception:  # noqa: BLE001
                log.exception("%s: dispatch failed", self.name)
            self._wake.wait(self.settings.callback_poll_seconds)
            self._wake.clear()
