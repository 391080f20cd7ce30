"""The embedded queue: threads in the server process, each taking a warm sandbox from one ``Judge``.

The queue itself is the store: on start every submission still queued or
running (the server stopped or was killed before its verdict) is queued again,
so a restart loses no accepted submission.
"""

from __future__ import annotations

import logging
import os
import queue
import threading
from collections.abc import Callable

from judge.service.bundle_versions import BundleVersions
from judge.service.settings import Settings
from judge.service.store import Store
from judge.service.worker import process_submission
from judge.service.worker_beat import WorkerBeat

log = logging.getLogger("judge.service")


class EmbeddedBackend:
    mode = "embedded"

    def __init__(self, store: Store, settings: Settings, on_stored: Callable[[dict], None] | None = None) -> None:
        from judge.engine import Judge

        self.store = store
        self.settings = settings
        self.on_stored = on_stored
        # phased: learners see the public cases' verdict while the hidden ones run (judge.grading.phases)
        self.judge = Judge(workers=settings.workers, unsafe_no_sandbox=settings.unsafe_no_sandbox, phased=True)
        self.versions = BundleVersions(store)  # a bundle changed between acceptance and grading: its old version
        self._queue: queue.Queue[str | None] = queue.Queue()
        self._threads: list[threading.Thread] = []
        self._busy = 0
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self.ready = threading.Event()
        self._rejudges: queue.Queue[str] = queue.Queue()
        self.claim_beat = WorkerBeat(store)  # claims only: this server's slots are its health, not the fleet's

    def start(self) -> None:
        pending = self.store.pending_ids()
        if pending:
            log.info("re-queueing %d submissions accepted before the last stop", len(pending))
        for sub_id in pending:
            self._queue.put(sub_id)
        threading.Thread(target=self._warm_up, name="judge-warm-up", daemon=True).start()
        from judge.service.rejudge import RejudgeStore

        for rid in RejudgeStore(self.store).active_ids():  # a restart resumes them where they were
            self._rejudges.put(rid)
        threading.Thread(target=self._rejudge_loop, name="judge-rejudge", daemon=True).start()
        for i in range(self.settings.workers):
            thread = threading.Thread(target=self._loop, args=(i,), name=f"judge-worker-{i}", daemon=True)
            thread.start()
            self._threads.append(thread)

    def _warm_up(self) -> None:
        try:
            self.judge.warm_up()
            for pid in self._problems():
                self.judge.problem(pid)
        except Exception:  # noqa: BLE001 - grading reports the same failure per submission
            log.exception("warming up the sandbox failed")
        finally:
            self.ready.set()

    @staticmethod
    def _problems() -> list[str]:
        from judge.problem.loader import available

        return available()

    def _loop(self, index: int) -> None:
        name = f"embedded-{os.getpid()}-{index}"
        while True:
            sub_id = self._queue.get()
            if sub_id is None or self._stopping.is_set():
                return
            with self._lock:
                self._busy += 1
            try:
                process_submission(self.store, self.judge, sub_id, name, self.on_stored, self.versions,
                                   self.settings.max_attempts, self.claim_beat)
            except Exception:  # noqa: BLE001 - e.g. the store is unreachable: it stays pending for the next start
                log.exception("submission %s: could not be processed", sub_id)
            finally:
                with self._lock:
                    self._busy -= 1

    def submit(self, ids: list[str]) -> None:
        for sub_id in ids:
            self._queue.put(sub_id)

    def rejudge(self, rejudge_id: str) -> None:
        self._rejudges.put(rejudge_id)

    def _live_busy(self) -> bool:
        return self._busy > 0 or not self._queue.empty()

    def _rejudge_loop(self) -> None:
        """One rejudge at a time, one item at a time, only while no live submission waits or runs."""
        from judge.service import rejudge

        rs = rejudge.RejudgeStore(self.store)
        while not self._stopping.is_set():
            try:
                rid = self._rejudges.get(timeout=0.5)
            except queue.Empty:
                continue
            while not self._stopping.is_set():
                try:
                    outcome = rejudge.run(rs, self.judge, rid, self._live_busy)
                except Exception:  # noqa: BLE001 - the store away: try again shortly, lose nothing
                    log.exception("rejudge %s: interrupted; retrying", rid)
                    outcome = "yielded"
                if outcome != "yielded":
                    break
                self._stopping.wait(0.2)

    def health(self) -> dict:
        return {"mode": self.mode, "workers": self.settings.workers, "ready": self.ready.is_set(),
                "busy": self._busy, "local_queue": self._queue.qsize()}

    def stop(self) -> None:
        """Stop taking work; submissions in flight stay pending in the store and are judged after a restart."""
        self._stopping.set()
        for _ in self._threads:
            self._queue.put(None)
        for thread in self._threads:
            thread.join(timeout=2)
        self.claim_beat.stop()
        self.judge.close()
