"""Faults of the broker and the database, and a worker with another copy of a bundle, on separate hosts
(tests/support/hosts.py): nothing lost, nothing doubled, and no restart of the API or the workers needed.

* Redis restarted without persistence while jobs wait in it: the store stays the source of truth and the API's
  sweeper publishes again what the broker lost (judge/service/celery_app.py).
* PostgreSQL stopped mid-job: the API answers 503 ``store_unavailable`` with Retry-After (never a 500), the
  worker keeps its verdict and stores it when the database is back.
* A worker host whose problems folder holds another version of the bundle grades with the version the API
  accepted the submission under, fetched from the store (judge/service/bundle_versions.py).

Each test prints its recovery time (``RECOVERY <fault>: <seconds>``)."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

from tests.support.hosts import Cluster
from tests.support.service import wait_for

SUBMISSIONS = Path(__file__).resolve().parents[2] / "submissions" / "sinusoidal-pe"
CORRECT = (SUBMISSIONS / "accepted" / "vectorised.py").read_text()
WRONG = (SUBMISSIONS / "wrong_answer" / "sin_cos_swapped.py").read_text()
#: about 4 s per call: the sandbox's wall limit ends each call of this sleeper, almost no CPU used
SLOW = (SUBMISSIONS / "time_limit_exceeded" / "sleep.py").read_text()
SWEEP, GRACE = 2, 3  # the API's sweeper: every 2 s, a published job is looked for after 3 s


API_ENV = {"JUDGE_SWEEP_SECONDS": str(SWEEP), "JUDGE_SWEEP_GRACE": str(GRACE)}
WORKER_ENV = {"JUDGE_VISIBILITY_TIMEOUT": "30", "JUDGE_RESTORE_INTERVAL": "2"}


def submit(cluster: Cluster, sources: list[str]) -> list[str]:
    with cluster.client() as c:
        out = []
        for source in sources:
            r = c.post("/v1/submissions", json={"problem": "sinusoidal-pe", "source": source})
            assert r.status_code == 202, r.text
            out.append(r.json()["id"])
        return out


def all_done_once(cluster: Cluster, ids: list[str], timeout: float = 120) -> dict:
    """Every submission ends with one current verdict (the store keeps one row per id, state done)."""
    store = cluster.store()
    try:
        rows = wait_for(lambda: (lambda rs: rs if len(rs) == len(ids) and all(r.state == "done" for r in rs.values())
                                 else None)(store.get_many(ids)), timeout, 0.2, "every verdict")
    finally:
        store.close()
    for row in rows.values():
        assert row.status and row.verdict_json and row.finished_at, row
    return rows


def test_redis_restarted_with_jobs_queued_the_sweeper_publishes_them_again(cluster):
    for name in list(cluster.workers):  # no worker takes the jobs: they wait in Redis
        cluster.kill_host(name)
    ids = submit(cluster, [CORRECT, WRONG, CORRECT, WRONG, CORRECT, WRONG])
    store = cluster.store()
    try:
        wait_for(lambda: all(r.enqueued_at for r in store.get_many(ids).values()), 10, 0.1, "published")
    finally:
        store.close()
    restarted = time.time()
    cluster.restart_redis(flush=True)  # a restart without persistence: the queue is gone
    store = cluster.store()
    try:
        republished = wait_for(lambda: (lambda rs: max(r.enqueued_at for r in rs.values())
                                        if all(r.enqueued_at > restarted for r in rs.values()) else None)(
            store.get_many(ids)), 60, 0.1, "the sweeper to publish the lost jobs again") - restarted
    finally:
        store.close()
    for name in ("w1", "w2"):  # workers back only now, so that nothing but the sweeper can bring the jobs back
        cluster.start_worker(name)
    rows = all_done_once(cluster, ids, timeout=120)
    print(f"\nRECOVERY redis-restarted (6 queued jobs lost by the broker, sweeper every {SWEEP} s, "
          f"grace {GRACE} s): published again {republished:.1f} s after the restart; the last verdict "
          f"{max(r.finished_at for r in rows.values()) - restarted:.1f} s after it (two workers started meanwhile)")
    assert [rows[i].status for i in ids] == ["accepted", "wrong_answer"] * 3
    assert all(r.attempts == 1 for r in rows.values()), [r.attempts for r in rows.values()]
    log = cluster.api.output()
    republished = [int(n) for n in re.findall(r"publishing again (\d+) submissions the broker no longer holds", log)]
    assert sum(republished) == 6, log[-3000:]


def test_postgres_restarted_api_answers_503_and_the_worker_stores_its_verdict_later(cluster):
    [slow] = submit(cluster, [SLOW])
    store = cluster.store()
    try:
        running = wait_for(lambda: (lambda r: r if r.state == "running" else None)(store.get(slow)), 60, 0.05,
                           "the slow submission to start")
    finally:
        store.close()
    host = cluster.host_of(running.worker)
    cluster.stop_postgres()
    stopped = time.time()
    with cluster.client() as c:
        for method, path, body in (("POST", "/v1/submissions", {"problem": "sinusoidal-pe", "source": CORRECT}),
                                   ("GET", f"/v1/submissions/{slow}", None)):
            r = c.request(method, path, json=body)
            assert r.status_code == 503, (path, r.status_code, r.text)
            assert r.json()["code"] == "store_unavailable" and int(r.headers["Retry-After"]) > 0, r.text
        health = c.get("/healthz")
        assert health.status_code == 503 and health.json()["store"].startswith("error"), health.text
    # the worker finishes grading while the database is away, and keeps the verdict
    wait_for(lambda: f"submission {slow}: the store is unreachable" in cluster.worker_log(host), 60, 0.2,
             "the worker to find the store away")
    cluster.start_postgres()
    back = time.time()
    with cluster.client() as c:
        wait_for(lambda: c.get("/healthz").status_code == 200, 60, 0.2, "the API to answer again")
        api_back = time.time() - back
        [after] = submit(cluster, [CORRECT])
    rows = all_done_once(cluster, [slow, after], timeout=120)
    print(f"\nRECOVERY postgres-restarted (down {back - stopped:.1f} s): API answers again "
          f"{api_back:.1f} s after the database, the held verdict stored "
          f"{rows[slow].finished_at - back:.1f} s after it")
    assert rows[slow].status == "time_limit_exceeded" and rows[slow].attempts == 1
    assert cluster.host_of(rows[slow].worker) == host
    assert rows[after].status == "accepted"
    for proc in [cluster.api, *cluster.workers.values()]:
        assert proc.alive()  # no process was restarted to recover


def test_a_worker_whose_bundle_differs_grades_the_version_the_api_accepted(cluster):
    """w2's copy of the bundle has a reference that is wrong (an author's half-deployed edit): graded with it, a
    correct file would be a wrong answer.  Every verdict is accepted, with the API's digest, and w2 says it
    fetched that version from the store."""
    from judge.problem.loader import load_problem

    api_digest = load_problem(cluster["api"].problems / "sinusoidal-pe").digest
    reference = cluster["w2"].problems / "sinusoidal-pe" / "reference.py"
    reference.write_text(reference.read_text().replace("np.sin(", "np.cos(", 1))
    assert load_problem(reference.parent).digest != api_digest
    cluster.kill_host("w1")  # w2 takes every job
    try:
        ids = submit(cluster, [CORRECT, WRONG, CORRECT])
        rows = all_done_once(cluster, ids, timeout=180)
    finally:
        cluster.start_worker("w1")
    assert {cluster.host_of(r.worker) for r in rows.values()} == {"w2"}
    assert [rows[i].status for i in ids] == ["accepted", "wrong_answer", "accepted"], \
        [rows[i].verdict_json[:300] for i in ids]
    assert {json.loads(r.verdict_json)["problem_digest"] for r in rows.values()} == {api_digest}
    assert all(r.problem_digest == api_digest for r in rows.values())
    assert f"version {api_digest} fetched from the store" in cluster.worker_log("w2")
    wrong = json.loads(rows[ids[1]].verdict_json)
    assert "sin_cos_swapped" in json.dumps(wrong)  # the mistake is named against the API's reference
