"""Which copies of a job are alive: the attempts cap counts dead claims only.

A submission that takes its worker down with it (an OOM kill, a host lost) would come back from the broker
forever, so after ``JUDGE_MAX_ATTEMPTS`` lost attempts it gets an internal error instead of another run.  But
a job can also run as several copies at once while nothing died: a broker hands a held job to another worker
after its visibility timeout, the sweeper publishes again a job it could not find.  Those copies are not failed
attempts, and counting them would store an internal error while graders are still running the job.

So each copy holds a claim row (``judge_claims``) while it runs; the worker process refreshes ``alive_at`` of
the claims it holds every few seconds (:class:`judge.service.worker_beat.WorkerBeat`), and removes a claim when
its copy ends, whatever the outcome.  A claim left behind whose ``alive_at`` is older than :data:`ALIVE_SECONDS`
belonged to a copy that died: that, and only that, is a failed attempt.  The claims of a judged submission are removed.
A copy that died less than :data:`ALIVE_SECONDS` before the next claim is counted from the claim after.
"""

from __future__ import annotations

import logging
import time
import uuid

from sqlalchemy import delete, func, insert, select, update

from judge.service.db.schema import claims
from judge.service.store import Store

log = logging.getLogger("judge.service")

ALIVE_SECONDS = 20.0  # four beats (judge.service.worker_beat.BEAT_SECONDS) missed


class Claims:
    """The claims table on the service's :class:`Store` engines."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def open(self, submission_id: str, worker: str, now: float | None = None) -> tuple[str, int]:
        """A claim for this copy: its token, and how many earlier copies died without a verdict."""
        now = time.time() if now is None else now
        token = uuid.uuid4().hex
        c = claims
        with self.store._write() as conn:
            dead = conn.execute(select(func.count()).select_from(c).where(
                c.c.submission_id == submission_id, c.c.alive_at < now - ALIVE_SECONDS)).scalar_one()
            conn.execute(insert(c).values(token=token, submission_id=submission_id, worker=worker[:255],
                                          claimed_at=now, alive_at=now))
        return token, int(dead)

    def close(self, token: str) -> None:
        """This copy ended (a verdict, a duplicate, an error it handled): not a dead claim."""
        with self.store._write() as conn:
            conn.execute(delete(claims).where(claims.c.token == token))

    def clear(self, submission_id: str) -> None:
        """The submission has its verdict: its claims, dead or alive, are history."""
        with self.store._write() as conn:
            conn.execute(delete(claims).where(claims.c.submission_id == submission_id))

    def beat(self, tokens: list[str], now: float | None = None) -> None:
        if not tokens:
            return
        with self.store._write() as conn:
            conn.execute(update(claims).where(claims.c.token.in_(tokens))
                         .values(alive_at=time.time() if now is None else now))
