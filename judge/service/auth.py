"""Bearer tokens (one per platform) and a token-bucket rate limit per platform."""

from __future__ import annotations

import hmac
import math
import threading
import time

from fastapi import Request

from judge.service.errors import ApiError


class Authenticator:
    def __init__(self, tokens: dict[str, str]) -> None:
        self._tokens = [(name, token.encode()) for name, token in tokens.items()]

    def platform(self, request: Request) -> str:
        header = request.headers.get("authorization", "")
        scheme, _, credentials = header.partition(" ")
        if not header:
            raise ApiError(401, "unauthorized", "missing Authorization: Bearer <token>")
        if scheme.lower() != "bearer" or not credentials.strip():
            raise ApiError(401, "unauthorized", "the Authorization header must be 'Bearer <token>'")
        given = credentials.strip().encode()
        found = None
        for name, token in self._tokens:  # compare with every token, in constant time each
            if hmac.compare_digest(given, token):
                found = name
        if found is None:
            raise ApiError(401, "unauthorized", "unknown token")
        return found


class RateLimiter:
    """Token bucket per platform: ``rate`` requests a second on average, bursts up to ``burst``."""

    def __init__(self, rate: float, burst: float) -> None:
        self.rate = rate
        self.burst = max(1.0, burst)
        self._buckets: dict[str, tuple[float, float]] = {}
        self._lock = threading.Lock()

    def take(self, platform: str, cost: float = 1.0) -> None:
        if self.rate <= 0:
            return
        now = time.monotonic()
        with self._lock:
            level, last = self._buckets.get(platform, (self.burst, now))
            level = min(self.burst, level + (now - last) * self.rate)
            if level < cost:
                self._buckets[platform] = (level, now)
                retry = math.ceil((cost - level) / self.rate) if cost <= self.burst else None
                message = (f"rate limit of {self.rate:g} requests/s (bursts of {self.burst:g}) exceeded"
                           if retry is not None else f"a request may cost at most {self.burst:g}")
                raise ApiError(429, "rate_limited", message,
                               headers={"Retry-After": str(retry)} if retry is not None else None)
            self._buckets[platform] = (level - cost, now)
