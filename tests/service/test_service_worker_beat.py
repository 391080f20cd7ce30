"""A judging process's one heartbeat thread (judge.service.worker_beat): its slots and its claims, together."""

from __future__ import annotations

import threading
import time

from judge.service.claims import ALIVE_SECONDS, Claims
from judge.service.store import Store
from judge.service.worker_beat import WorkerBeat
from judge.service.worker_slots import SlotRegistry


def test_one_thread_beats_the_slots_and_the_claims(tmp_path):
    store = Store(f"sqlite:///{tmp_path}/store.sqlite3")
    store.create_schema()
    beat = WorkerBeat(store, "w1", 3)
    try:
        claims = Claims(store)
        long_ago = time.time() - ALIVE_SECONDS - 60
        token, dead = claims.open("sub", "w1", now=long_ago)  # a copy of this process, claimed long ago
        assert dead == 0
        with beat:
            beat.hold(token)  # starts the thread, whose first beat is at once
            deadline = time.monotonic() + 10
            while SlotRegistry(store).fleet().busy != 1 and time.monotonic() < deadline:
                time.sleep(0.05)
            fleet = SlotRegistry(store).fleet()
            assert (fleet.workers, fleet.busy, fleet.idle) == (1, 1, 2)
            # the claim was beaten too: the next copy does not count it as dead
            assert claims.open("sub", "w2")[1] == 0
            assert [t.name for t in threading.enumerate()].count("judge-beat") == 1
            beat.start()  # the worker says it is ready after a job came in: still one thread
            assert [t.name for t in threading.enumerate()].count("judge-beat") == 1
    finally:
        beat.stop()
    assert SlotRegistry(store).fleet().workers == 0, "a stopped worker leaves the fleet at once"
    store.close()
