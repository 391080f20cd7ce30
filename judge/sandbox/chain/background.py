"""One call in a daemon thread, its result or exception handed back to whoever waits for it.

The judge overlaps waiting with work in three places: each run beside the judge's own
work (judging the slots the run has finished, and in a fresh process importing the
grading side: :func:`judge.engine._run_beside`), a cold start's early run beside the
judge's start-up (:class:`judge.grading.run_plan.EarlyRun`), and the zygote's cgroup join beside
its numpy import (:mod:`judge.sandbox.chain.zygote_boot`).  This module imports only
``threading``, so the zygote can use it before anything heavy.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class InBackground(Generic[T]):
    """``call()`` started at once in a daemon thread named ``name``."""

    def __init__(self, call: Callable[[], T], name: str) -> None:
        self._value: T | None = None
        self._error: BaseException | None = None
        self._call = call
        self._thread = threading.Thread(target=self._body, name=name, daemon=True)
        self._thread.start()

    def _body(self) -> None:
        try:
            self._value = self._call()
        except BaseException as exc:  # noqa: BLE001 - raised again in the waiting thread by result()
            self._error = exc

    def join(self) -> None:
        """Wait for the call to end, whatever it did."""
        self._thread.join()

    def wait(self, timeout: float) -> bool:
        """Wait at most ``timeout`` seconds for the call to end; whether it has."""
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def result(self) -> T:
        """Wait for the call; its value, or raise what it raised."""
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._value  # type: ignore[return-value]
