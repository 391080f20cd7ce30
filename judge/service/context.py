"""What every router of the service shares: the store, the queue backend, settings, limits."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any

from fastapi.concurrency import run_in_threadpool

from judge.service.auth import Authenticator, RateLimiter
from judge.service.bundle_versions import BundleVersions
from judge.service.metrics import Metrics
from judge.service.settings import Settings
from judge.service.store import DONE, NewSubmission, Store, StoredSubmission


@dataclass
class ServiceContext:
    settings: Settings
    store: Store
    backend: Any
    metrics: Metrics
    auth: Authenticator
    limiter: RateLimiter
    extras: dict[str, Any] = field(default_factory=dict)  # per-feature services (e.g. "lti")
    versions: BundleVersions | None = None  # None: submissions carry no bundle version (tests of parts)

    def stamp_versions(self, items: list[NewSubmission]) -> None:
        """Record on each new submission the bundle version it is accepted under (its files kept in the
        store), so whichever host grades it grades that version (:mod:`judge.service.bundle_versions`)."""
        if self.versions is None:
            return
        for item in items:
            item.problem_digest = self.versions.current(item.problem)

    async def wait_done(self, ids: list[str], timeout: float) -> dict[str, StoredSubmission]:
        """The rows, once all are judged or ``timeout`` seconds passed."""
        deadline = time.monotonic() + timeout
        while True:
            rows = await run_in_threadpool(self.store.get_many, ids)
            if all(r.state == DONE for r in rows.values()) or time.monotonic() >= deadline:
                return rows
            await asyncio.sleep(min(0.05, max(0.0, deadline - time.monotonic())))
