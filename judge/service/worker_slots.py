"""Worker slots across hosts: each ``judge worker`` says, every few seconds, how many submissions it can
judge at once and how many it is judging now; ``/metrics`` adds them up for an autoscaler.

The figures live in the store (table ``judge_worker_slots``) like the queue's, so any API replica reports
the whole fleet.  A worker that stopped beating for :data:`STALE_SECONDS` (killed, cut off) no longer counts.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass

from sqlalchemy import delete, func, select, update

from judge.service.db.schema import slots_table
from judge.service.store import Store

log = logging.getLogger("judge.service")

STALE_SECONDS = 20.0  # four beats (judge.service.worker_beat.BEAT_SECONDS) missed


@dataclass(frozen=True)
class Fleet:
    workers: int
    busy: int
    idle: int


class SlotRegistry:
    def __init__(self, store: Store) -> None:
        self.store = store

    def beat(self, name: str, slots: int, busy: int, now: float | None = None) -> None:
        now = time.time() if now is None else now
        t = slots_table
        with self.store._write() as conn:
            done = conn.execute(update(t).where(t.c.name == name).values(slots=slots, busy=busy, seen_at=now))
            if done.rowcount == 0:
                conn.execute(t.insert().values(name=name, slots=slots, busy=busy, seen_at=now))

    def leave(self, name: str) -> None:
        with self.store._write() as conn:
            conn.execute(delete(slots_table).where(slots_table.c.name == name))

    def fleet(self, now: float | None = None) -> Fleet:
        now = time.time() if now is None else now
        t = slots_table
        with self.store._read() as conn:
            n, slots, busy = conn.execute(select(func.count(), func.coalesce(func.sum(t.c.slots), 0),
                                                 func.coalesce(func.sum(t.c.busy), 0))
                                          .where(t.c.seen_at >= now - STALE_SECONDS)).one()
        busy = min(int(busy), int(slots))
        return Fleet(workers=int(n), busy=busy, idle=int(slots) - busy)
