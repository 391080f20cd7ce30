"""Scaled out: Celery with Redis as broker.  ``judge serve --broker`` publishes, ``judge worker`` judges.

A task is acknowledged only after its verdict is stored (``acks_late``), and is
requeued when its worker dies (``reject_on_worker_lost``; with Redis, a message
a killed worker held comes back after ``visibility_timeout``).  A task that runs
twice stores one verdict: the store's conditional UPDATE keeps the first.
"""

from __future__ import annotations

import logging
import socket
import threading
import time

from celery import Celery

from judge.service.settings import Settings
from judge.service.store import Store

log = logging.getLogger("judge.service")
TASK = "judge.grade_submission"
REJUDGE_TASK = "judge.rejudge"


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

    def start(self) -> None:
        try:
            self._republish(time.time())
        except Exception:  # noqa: BLE001 - the broker is down: the sweeper tries again
            log.exception("could not reach the broker at start-up; stored submissions will be published later")
        self._thread = threading.Thread(target=self._sweeper, name="judge-republish", daemon=True)
        self._thread.start()

    def _republish(self, older_than: float) -> None:
        ids = self.store.unpublished_ids(older_than)
        if ids:
            log.info("publishing %d stored submissions that never reached the broker", len(ids))
            self.submit(ids)

    def _sweeper(self) -> None:
        while not self._stop.wait(10):
            try:
                self._republish(time.time() - 10)
            except Exception:  # noqa: BLE001
                log.exception("republishing failed")

    def submit(self, ids: list[str]) -> None:
        published = []
        try:
            for sub_id in ids:
                self.app.send_task(TASK, args=[sub_id], queue=self.settings.queue_name)
                published.append(sub_id)
        finally:
            self.store.mark_enqueued(published)

    def rejudge(self, rejudge_id: str) -> None:
        self.app.send_task(REJUDGE_TASK, args=[rejudge_id], queue=self.settings.queue_name)

    def health(self) -> dict:
        import redis

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
    from judge.service.worker import process_submission

    from judge.service import rejudge as _tables  # noqa: F401 - registers the rejudge tables before create_schema

    store = Store(settings.db_url)
    store.create_schema()
    judge = Judge(workers=concurrency, unsafe_no_sandbox=settings.unsafe_no_sandbox)
    app = make_celery(settings)
    name = hostname or f"judge-{socket.gethostname()}-{__import__('os').getpid()}"

    @app.task(name=TASK, bind=True, acks_late=True, reject_on_worker_lost=True, max_retries=None)
    def grade_submission(self, sub_id: str) -> str:  # noqa: ANN001
        try:
            return process_submission(store, judge, sub_id, self.request.hostname or name)
        except Exception as exc:  # noqa: BLE001 - the store is unreachable: try again later, lose nothing
            log.exception("submission %s: could not be processed; retrying", sub_id)
            raise self.retry(exc=exc, countdown=5)

    @app.task(name=REJUDGE_TASK, bind=True, acks_late=True, reject_on_worker_lost=True, max_retries=None)
    def rejudge_task(self, rejudge_id: str) -> str:  # noqa: ANN001
        """Grades the rejudge's items while no live submission is queued or running; when one is, sends itself
        again (in a second) and frees this worker for it."""
        from judge.service.rejudge import RejudgeStore, run

        try:
            outcome = run(RejudgeStore(store), judge, rejudge_id, lambda: store.pending_count() > 0)
        except Exception as exc:  # noqa: BLE001 - the store away: try again later, lose nothing
            log.exception("rejudge %s: interrupted; retrying", rejudge_id)
            raise self.retry(exc=exc, countdown=5)
        if outcome == "yielded":
            self.apply_async(args=[rejudge_id], countdown=1, queue=settings.queue_name)
        return outcome

    @worker_ready.connect
    def _warm(**_kwargs) -> None:  # noqa: ANN003
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
        judge.close()
        store.close()
