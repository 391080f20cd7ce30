"""The service's background loops in one list, started in order and stopped in reverse, each stop attempted.

What runs in the background of ``judge serve`` (each loop's code stays with the data it serves):

- callback delivery (:class:`judge.service.callbacks.CallbackDispatcher`, on :mod:`judge.service.delivery`):
  signed POSTs of verdicts, retried with backoff;
- grade passback (:class:`judge.service.lti.passback.ScoreDispatcher`, same base), with the learner side on;
- the queue backend: embedded worker threads, their warm-up and the rejudge runner
  (:class:`judge.service.embedded.EmbeddedBackend`), or the Celery sweeper that republishes lost jobs
  (:class:`judge.service.celery_app.CeleryBackend`).

And in a judging process, one heartbeat thread (:class:`judge.service.worker_beat.WorkerBeat`).

Why one list: the app's start and stop named each loop twice, in two orders kept by hand, and a loop whose
stop failed left the ones after it running.  Here a loop is anything with ``start()`` and ``stop()``.
"""

from __future__ import annotations

import logging
from typing import Protocol

log = logging.getLogger("judge.service")


class Loop(Protocol):
    def start(self) -> None: ...

    def stop(self) -> None: ...


class Loops:
    """Loops started in the order given, stopped in reverse (the backend, started last, stops first)."""

    def __init__(self, *loops: Loop | None) -> None:
        self.loops = [loop for loop in loops if loop is not None]
        self._started: list[Loop] = []

    def start(self) -> None:
        for loop in self.loops:
            loop.start()
            self._started.append(loop)

    def stop(self) -> None:
        """Every started loop is asked to stop, whichever failed before it."""
        while self._started:
            loop = self._started.pop()
            try:
                loop.stop()
            except Exception:  # noqa: BLE001 - one loop's failure must not leave the others running
                log.exception("stopping %s failed", type(loop).__name__)
