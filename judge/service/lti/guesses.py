"""Limits on guessing a secret at the sign-in doors (a course's access code, a learner's personal code).

Only wrong guesses spend: a class signing in at the start of a lecture, all behind one address, is never
slowed, while someone trying codes is.  Three buckets must all have room before a guess is even checked:

- per client address (the socket's, or a trusted proxy's ``X-Forwarded-For``: see ``JUDGE_FORWARDED_ALLOW_IPS``),
- per course (one course's code tried from many addresses),
- for the whole server (every course's codes tried from many addresses).

A course whose bucket is empty refuses every sign-in for a while, right codes included (checking the code
would answer the guess): the price of a limit that many addresses cannot spread.  A learner who already holds
their personal code in a cookie goes on without the course's code.  Buckets that refilled are forgotten, and
at most ``max_keys`` are kept, so addresses an attacker makes up cost a bounded memory.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass


class FailureBuckets:
    """Token buckets keyed by a string, spent by failures only: ``rate`` refills a second, ``burst`` deep."""

    def __init__(self, rate: float, burst: float, max_keys: int = 50_000) -> None:
        self.rate, self.burst, self.max_keys = rate, burst, max_keys
        self._levels: dict[str, tuple[float, float]] = {}
        self._lock = threading.Lock()

    def _level(self, key: str, now: float) -> float:
        level, last = self._levels.get(key, (self.burst, now))
        return min(self.burst, level + (now - last) * self.rate)

    def blocked(self, key: str) -> bool:
        with self._lock:
            return self._level(key, time.monotonic()) < 1.0

    def failed(self, key: str) -> None:
        now = time.monotonic()
        with self._lock:
            self._levels[key] = (max(0.0, self._level(key, now) - 1.0), now)
            if len(self._levels) > self.max_keys:
                self._forget(now)

    def _forget(self, now: float) -> None:
        for key in [k for k in self._levels if self._level(k, now) >= self.burst]:
            del self._levels[key]
        while len(self._levels) > self.max_keys:  # still too many: the oldest first
            del self._levels[min(self._levels, key=lambda k: self._levels[k][1])]


@dataclass
class GuessLimits:
    """The three buckets of the module's docstring; ``course`` is None for a guess not tied to one course."""

    client: FailureBuckets
    course: FailureBuckets
    server: FailureBuckets

    @classmethod
    def of(cls, limits: dict[str, tuple[float, float]]) -> GuessLimits:
        """From ``Settings.learn_guess_limits``: scope -> (refill a second, burst)."""
        return cls(**{scope: FailureBuckets(*limits[scope]) for scope in ("client", "course", "server")})

    def allowed(self, client: str, course: str | None) -> bool:
        return not (self.client.blocked(client) or self.server.blocked("*")
                    or (course is not None and self.course.blocked(course)))

    def failed(self, client: str, course: str | None) -> None:
        self.client.failed(client)
        self.server.failed("*")
        if course is not None:
            self.course.failed(course)
