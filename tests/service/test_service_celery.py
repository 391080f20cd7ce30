"""Scaled out: `judge serve --broker redis://...` with real `judge worker` processes on Celery,
a real redis-server, and a shared store (SQLite file, then a real PostgreSQL)."""

from __future__ import annotations

import time

from judge.service.callbacks import verify
from judge.service.store import Store
from tests.support.service import (
    SOURCES,
    CallbackListener,
    Server,
    Worker,
    require_sandbox,
    service_env,
    submit_batch,
    wait_done,
    wait_for,
)

TOKEN = "celery-token-abcdef123"


def _env() -> dict:
    # a short visibility timeout so a killed worker's task comes back within seconds (default 300 s)
    return service_env(JUDGE_API_TOKENS=f"lms:{TOKEN}", JUDGE_VISIBILITY_TIMEOUT="9", JUDGE_RESTORE_INTERVAL="1",
                       JUDGE_CALLBACK_POLL_SECONDS="0.2")


def _submit(client, kinds: list[str], callback: str | None = None) -> list[str]:  # noqa: ANN001
    return submit_batch(client, [SOURCES[k] for k in kinds], callback)


def _expected(kinds: list[str]) -> list[str]:
    return [{"accepted2": "accepted"}.get(k, k) for k in kinds]


def test_worker_killed_mid_verdict_loses_nothing_and_doubles_nothing(tmp_path, redis):
    require_sandbox()
    db = f"sqlite:///{tmp_path}/judge.sqlite3"
    env = _env()
    listener = CallbackListener()
    server = Server(tmp_path, db, env, broker=redis.url, name="serve")
    workers = {}
    try:
        workers = {name: Worker(tmp_path, name, redis.url, db, env) for name in ("w1", "w2")}
        assert server.client(TOKEN).get("/healthz").json()["mode"] == "celery"
        kinds = ["time_limit_exceeded"] + ["accepted", "wrong_answer", "accepted2", "compile_error"] * 2
        with server.client(TOKEN) as client:
            ids = _submit(client, kinds[:1], listener.url)  # the slow one first: it is the one cut off
            store = Store(db)
            row = wait_for(lambda: (lambda r: r if r.state == "running" else None)(store.get(ids[0])), 30,
                           what="a worker to start the slow submission")
            victim = next(w for w in workers.values() if w.name == row.worker)
            ids += _submit(client, kinds[1:], listener.url)
            victim.kill()
            survivor = next(w for w in workers.values() if w is not victim)
            try:
                done = wait_done(client, ids, 90)
            except AssertionError as exc:  # say where each submission stands and what the survivor did
                states = [getattr(store.get(i), "state", None) for i in ids]
                raise AssertionError(f"{exc}; states {states}; survivor's log:\n{survivor.output()[-4000:]}"
                                     f"\nserver's log:\n{server.output()[-2000:]}") from None
        assert [done[i]["verdict"]["status"] for i in ids] == _expected(kinds)
        first = store.get(ids[0])
        assert first.attempts == 2 and first.worker == survivor.name  # judged again, elsewhere
        delivered = wait_for(lambda: (lambda d: d if set(ids) <= set(d) else None)(listener.delivered()), 30,
                             what="a callback for every submission")
        time.sleep(1)  # room for a duplicate to show up, if there were one
        for sub_id in ids:
            [record] = delivered[sub_id]  # exactly one verdict, so exactly one callback
            assert verify(TOKEN.encode(), record["body"], record["headers"]["X-Judge-Signature"])
        assert sum(len(v) for v in listener.delivered().values()) == len(ids)
        assert "a verdict was stored by another attempt" not in survivor.output()
        store.close()
    finally:
        for worker in workers.values():
            worker.stop()
        server.stop()
        listener.stop()


def test_celery_with_postgres_store(tmp_path, redis, postgres):
    require_sandbox()
    db = postgres.new_database()
    env = _env()
    server = Server(tmp_path, db, env, broker=redis.url, name="serve-pg")
    worker = None
    try:
        worker = Worker(tmp_path, "pg1", redis.url, db, env, concurrency=2)
        kinds = ["accepted", "wrong_answer", "compile_error", "accepted2"]
        with server.client(TOKEN) as client:
            ids = _submit(client, kinds)
            key = {"Idempotency-Key": "pg-1"}
            one = client.post("/v1/submissions", json={"problem": "sinusoidal-pe", "source": SOURCES["accepted"]},
                              headers=key, params={"wait": "true"})
            again = client.post("/v1/submissions", json={"problem": "sinusoidal-pe", "source": SOURCES["accepted"]},
                                headers=key)
            assert one.status_code == 200 and one.json()["verdict"]["status"] == "accepted"
            assert again.json()["id"] == one.json()["id"]
            done = wait_done(client, ids, 60)
        assert [done[i]["verdict"]["status"] for i in ids] == _expected(kinds)
        store = Store(db)
        assert store.dialect == "postgresql" and store.get(ids[0]).worker == worker.name
        store.close()
    finally:
        if worker is not None:
            worker.stop()
        server.stop()


def test_copies_of_a_running_job_are_not_failed_attempts(tmp_path, redis, postgres):
    """A job runs as several copies at once when the broker hands it out again while nothing died (its
    visibility timeout passed, the sweeper could not find it).  With JUDGE_MAX_ATTEMPTS=1, a second copy of a job
    still running is no failed attempt: the job gets its own verdict, not "started ... and no attempt finished"."""
    require_sandbox()
    from judge.service.celery_app import TASK, make_celery, task_id
    from judge.service.settings import Settings

    db = postgres.new_database()
    env = service_env(JUDGE_API_TOKENS=f"lms:{TOKEN}", JUDGE_MAX_ATTEMPTS="1")
    server = Server(tmp_path, db, env, broker=redis.url, name="serve-copies")
    worker = None
    store = Store(db)
    try:
        worker = Worker(tmp_path, "copies", redis.url, db, env, concurrency=2)
        with server.client(TOKEN) as client:
            [sub_id] = _submit(client, ["time_limit_exceeded"])
            wait_for(lambda: (lambda r: r.state == "running")(store.get(sub_id)), 60, what="the first copy to start")
            app = make_celery(Settings(broker_url=redis.url))
            app.send_task(TASK, args=[sub_id], queue="judge", task_id=task_id(sub_id))  # what a redelivery sends
            wait_for(lambda: store.get(sub_id).attempts == 2, 30, what="the second copy to claim the job")
            app.close()
            done = wait_done(client, [sub_id], 120)[sub_id]
        assert done["verdict"]["status"] == "time_limit_exceeded", done["verdict"]["message"]
        assert "not judged again" not in worker.output()
    finally:
        store.close()
        if worker is not None:
            worker.stop()
        server.stop()
