"""Scaled out: Celery with Redis as broker.  ``judge serve --broker`` publishes, ``judge worker`` judges.

A task is acknowledged only after its verdict is stored (``acks_late``), and is
requeued when its worker dies (``reject_on_worker_lost``; with Redis, a message
a killed worker held comes back after ``visibility_timeout``).  A task that runs
twice stores one verdict: the store's conditional UPDATE keeps the first.

The store, not the broker, is the source of truth.  The server's sweeper (every
``JUDGE_SWEEP_SECONDS``, 10 s by default) publishes again:

- submissions stored but never published (a broker that was down when they came);
- submissions the broker lost (a Redis restarted without persistence): queued and
  published more than ``JUDGE_SWEEP_GRACE`` seconds ago (30 s by default), or
  running for longer than the visibility timeout plus that grace, and found
  neither in the queue nor among the messages workers hold, on two sweeps in a
  row (a worker takes a message out of the list a moment before it holds it).

So a job the broker lost is running again within grace + 2 sweeps of when it was
last published (about 50 s with the defaults).  A republished job that was not
lost after all is judged at most twice and stored once.  With several servers,
one sweeps at a time (a lock in Redis).  Each sweep also applies the rejudges
workers finished that are not dry runs: applying writes what a worker's database
role may not (judge.service.worker_role).
"""

from __future__ import annotations

import json
import logging
import socket
import threading
import time
import uuid

from celery import Celery

from judge.service.settings import Settings
from judge.service.store import STORE_AWAY, Store

log = logging.getLogger("judge.service")
TASK = "judge.grade_submission"
REJUDGE_TASK = "judge.rejudge"
#: kombu's Redis transport: a queue's priority lists are ``name``, ``name\x06\x163``, ...; held messages are in
#: the hash ``unacked``.
_PRIORITY_SEP = "\x06\x16"
_UNACKED = "unacked"


def task_id(sub_id: str) -> str:
    """A task id that names its submission (``<id>.<nonce>``), so the sweeper can find it in the broker."""
    return f"{sub_id}.{uuid.uuid4().hex[:8]}"


def submission_of(message: bytes | str) -> str | None:
    """The submission id a raw kombu message (JSON, task id in its headers) is for, or None."""
    try:
        data = json.loads(message)
        if isinstance(data, list):  # an unacked entry: [message, exchange, routing_key]
            data = data[0]
        tid = data.get("headers", {}).get("id") or data.get("properties", {}).get("correlation_id")
    except (ValueError, AttributeError, IndexError, TypeError):
        return None
    return tid.split(".", 1)[0] if isinstance(tid, str) else None


def make_celery(settings: Settings) -> Celery:
    if not settings.broker_url:
        raise ValueError("a broker URL is needed (redis://host:port/db)")
    app = Celery("judge", broker=settings.broker_url, set_as_current=False)
    app.conf.update(
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        task_acks_on_failure_or_timeout=True,
        worker_prefetch_multiplier=1,
        task_default_queue=settings.queue_name,
        task_serializer="json",
        accept_content=["json"],
        task_ignore_result=True,
        broker_connection_retry_on_startup=True,
        broker_transport_options={
            "visibility_timeout": settings.visibility_timeout_seconds,
            "unacked_restore_interval": settings.restore_interval_seconds,
            "unacked_restore_throttle": 1,
        },
        worker_cancel_long_running_tasks_on_connection_loss=False,
        worker_hijack_root_logger=False,
    )
    return app


class CeleryBackend:
    """The server's side: publish submission ids; no grading happens in the server process."""

    mode = "celery"

    def __init__(self, store: Store, settings: Settings) -> None:
        self.store = store
        self.settings = settings
        self.app = make_celery(settings)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._missing: set[str] = set()  # seen missing from the broker on the last sweep
        self._name = f"{socket.gethostname()}-{__import__('os').getpid()}"

    def start(self) -> None:
        try:
            self._republish(time.time())
        except Exception:  # noqa: BLE001 - the broker is down: the sweeper tries again
            log.exception("could not reach the broker at start-up; stored submissions will be published later")
        self._thread = threading.Thread(target=self._sweeper, name="judge-sweeper", daemon=True)
        self._thread.start()

    def _republish(self, older_than: float) -> None:
        ids = self.store.unpublished_ids(older_than)
        if ids:
            log.info("publishing %d stored submissions that never reached the broker", len(ids))
            self.submit(ids)

    def _redis(self):  # noqa: ANN202
        import redis

        assert self.settings.broker_url is not None  # the Celery backend runs with a broker only
        return redis.Redis.from_url(self.settings.broker_url, socket_timeout=5, socket_connect_timeout=5)

    def ids_in_broker(self) -> set[str]:
        """Every submission the broker holds: waiting in the queue (any priority) or held by a worker."""
        client = self._redis()
        try:
            name = self.settings.queue_name
            found: set[str] = set()
            for key in [name] + [f"{name}{_PRIORITY_SEP}{p}" for p in range(1, 10)]:
                for raw in client.lrange(key, 0, -1):
                    found.add(submission_of(raw) or "")
            for raw in client.hvals(_UNACKED):
                found.add(submission_of(raw) or "")
            found.discard("")
            return found
        finally:
            client.close()

    def _sweep_lock(self) -> bool:
        """One sweeper at a time among the servers sharing this broker."""
        client = self._redis()
        try:
            key = f"{self.settings.queue_name}:sweeper"
            hold = int(self.settings.sweep_seconds * 2000)  # two periods: the holder keeps it, a dead one's lapses
            if client.set(key, self._name, nx=True, px=hold):
                return True
            if client.get(key) == self._name.encode():
                client.pexpire(key, hold)
                return True
            return False
        finally:
            client.close()

    def sweep(self, now: float | None = None) -> list[str]:
        """One sweep (see the module's docstring); returns the ids published again because the broker lost them."""
        now = time.time() if now is None else now
        self._republish(now - self.settings.sweep_seconds)
        self._apply_finished_rejudges()
        if not self._sweep_lock():
            return []
        grace = self.settings.sweep_grace_seconds
        candidates = set(self.store.lost_candidates(queued_before=now - grace,
                                                    running_before=now - self.settings.visibility_timeout_seconds
                                                    - grace))
        missing = candidates - self.ids_in_broker() if candidates else set()
        confirmed, self._missing = missing & self._missing, missing - self._missing
        if confirmed:
            log.warning("publishing again %d submissions the broker no longer holds", len(confirmed))
            self.submit(sorted(confirmed))
        return sorted(confirmed)

    def _apply_finished_rejudges(self) -> None:
        """Rejudges created with ``dry_run: false`` that workers finished: applied here, because applying writes
        what a worker's database role may not (the verdicts' history, callbacks due, the gradebook's queue)."""
        from judge.service.rejudge import RejudgeConflict, RejudgeStore

        rejudges = RejudgeStore(self.store)
        for rid in rejudges.finished_to_apply():
            try:
                rejudges.apply(rid)
            except RejudgeConflict:  # another server applied it first
                pass

    def _sweeper(self) -> None:
        while not self._stop.wait(self.settings.sweep_seconds):
            try:
                self.sweep()
            except Exception as exc:  # noqa: BLE001 - the broker or the store away: sweep again next time
                log.warning("sweep failed: %s: %s", type(exc).__name__, exc)

    def submit(self, ids: list[str]) -> None:
        published = []
        try:
            for sub_id in ids:
                self.app.send_task(TASK, args=[sub_id], queue=self.settings.queue_name, task_id=task_id(sub_id))
                published.append(sub_id)
        finally:
            self.store.mark_enqueued(published)

    def rejudge(self, rejudge_id: str) -> None:
        self.app.send_task(REJUDGE_TASK, args=[rejudge_id], queue=self.settings.queue_name)

    def health(self) -> dict:
        import redis

        assert self.settings.broker_url is not None  # the Celery backend runs with a broker only
        client = redis.Redis.from_url(self.settings.broker_url, socket_timeout=2, socket_connect_timeout=2)
        try:
            depth = int(client.llen(self.settings.queue_name))
        finally:
            client.close()
        return {"mode": self.mode, "broker": "ok", "broker_queue": depth}

    def stop(self) -> None:
        self._stop.set()
        try:
            self.app.close()
        except Exception:  # noqa: BLE001
            pass


# -- the worker's side -------------------------------------------------------------
def run_worker(settings: Settings, concurrency: int, hostname: str | None = None, loglevel: str = "INFO") -> None:
    """``judge worker``: a Celery worker whose threads share one ``Judge`` with ``concurrency`` warm sandboxes."""
    from celery.signals import worker_ready

    from judge.engine import Judge
    from judge.service.bundle_versions import BundleVersions
    from judge.service.lti.hooks import register as learner_side_hooks
    from judge.service.worker import process_submission
    from judge.service.worker_beat import WorkerBeat

    learner_side_hooks()  # a learner-page submission's pictures (judge.service.learner_hooks)
    store = Store(settings.db_url)
    _create_schema_patiently(store)
    # phased: learners see the public cases' verdict while the hidden ones run (judge.grading.phases)
    judge = Judge(workers=concurrency, unsafe_no_sandbox=settings.unsafe_no_sandbox, phased=True)
    versions = BundleVersions(store)
    app = make_celery(settings)
    name = hostname or f"judge-{socket.gethostname()}-{__import__('os').getpid()}"
    # one thread: this worker's slots for /metrics, and the claims its copies hold, kept alive while they run
    heartbeat = WorkerBeat(store, name, concurrency)

    @app.task(name=TASK, bind=True, acks_late=True, reject_on_worker_lost=True, max_retries=None)
    def grade_submission(self, sub_id: str) -> str:  # noqa: ANN001
        try:
            with heartbeat:
                return process_submission(store, judge, sub_id, self.request.hostname or name, versions=versions,
                                          max_attempts=settings.max_attempts, beat=heartbeat)
        except Exception as exc:  # noqa: BLE001 - the store is unreachable: try again later, lose nothing
            if isinstance(exc, STORE_AWAY):
                log.warning("submission %s: the store is unreachable (%s); retrying in 5 s", sub_id,
                            type(exc).__name__)
            else:
                log.exception("submission %s: could not be processed; retrying in 5 s", sub_id)
            raise self.retry(exc=exc, countdown=5) from exc

    @app.task(name=REJUDGE_TASK, bind=True, acks_late=True, reject_on_worker_lost=True, max_retries=None)
    def rejudge_task(self, rejudge_id: str) -> str:  # noqa: ANN001
        """Grades the rejudge's items while no live submission is queued or running; when one is, sends itself
        again (in a second) and frees this worker for it."""
        from judge.service.rejudge import RejudgeStore, run

        try:
            outcome = run(RejudgeStore(store), judge, rejudge_id, lambda: store.pending_count() > 0,
                          apply_when_done=False)  # the API's sweeper applies it: a worker's role may not
        except Exception as exc:  # noqa: BLE001 - the store away: try again later, lose nothing
            log.exception("rejudge %s: interrupted; retrying", rejudge_id)
            raise self.retry(exc=exc, countdown=5) from exc
        if outcome == "yielded":
            self.apply_async(args=[rejudge_id], countdown=1, queue=settings.queue_name)
        return outcome

    @worker_ready.connect
    def _warm(**_kwargs) -> None:  # noqa: ANN003
        heartbeat.start()

        def warm() -> None:
            try:
                judge.warm_up()
                from judge.problem.loader import available

                for pid in available():
                    judge.problem(pid)
            except Exception:  # noqa: BLE001
                log.exception("warming up the sandbox failed")
        threading.Thread(target=warm, daemon=True).start()

    try:
        app.worker_main(["worker", "--pool=threads", f"--concurrency={concurrency}", "-Q", settings.queue_name,
                         "-n", name, "--without-gossip", "--without-mingle", "--without-heartbeat",
                         f"--loglevel={loglevel}"])
    finally:
        heartbeat.stop()
        judge.close()
        store.close()


def _create_schema_patiently(store: Store, patience: float = 300.0) -> None:
    """A worker may start before its database answers (a deploy brings everything up at once).  A worker with
    a role of its own (judge.service.worker_role) may not create or alter tables: it goes on once the tables it
    uses exist (the API makes them, then grants the role its share)."""
    deadline = time.monotonic() + patience
    while True:
        try:
            store.create_schema()
            return
        except Exception as exc:  # noqa: BLE001
            if _not_the_owner(exc) and _tables_exist(store):
                log.info("the store's tables are the API's (this worker's role may not alter them); using them")
                return
            if time.monotonic() > deadline:
                raise
            log.warning("the store is not ready yet (%s); trying again in 2 s", type(exc).__name__)
            time.sleep(2)


def _not_the_owner(exc: Exception) -> bool:
    """PostgreSQL's insufficient_privilege (SQLSTATE 42501), as a role without DDL rights gets."""
    return getattr(getattr(exc, "orig", None), "sqlstate", None) == "42501"


def _tables_exist(store: Store) -> bool:
    from sqlalchemy import inspect

    from judge.service.db.schema import metadata

    with store._read() as conn:
        return set(metadata.tables) <= set(inspect(conn).get_table_names())
