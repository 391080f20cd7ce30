"""Rejudging after a bundle changes on disk, without restarting `judge serve` or its workers:
a case added with `judge case add` is picked up by the next submission; a tolerance an author loosens is a dry
run whose matrix says which verdicts change, while nothing anyone sees changes; apply makes them current (the
old ones kept in the history), sends the platform's callbacks again for those that changed; `judge rejudge`
does the same from the command line.  Embedded with SQLite, then Celery with Redis and PostgreSQL over a few
hundred stored submissions.
"""

from __future__ import annotations

import subprocess
import sys
import time

from judge.service.store import Store
from tests.support.common import REPO
from tests.support.problems import _loosen, problems_copy
from tests.support.service import (
    CallbackListener,
    Server,
    Worker,
    _replicate,
    body_json,
    require_sandbox,
    service_env,
    submit_batch,
    wait_done,
    wait_for,
)

TOKEN = "rejudge-token-0123456789"
FILES = ["accepted/vectorised.py", "wrong_answer/float32_table.py", "wrong_answer/sin_cos_swapped.py",
         "wrong_answer/rw_keras_sine_float32.py", "accepted/loops_with_math.py"]
# what allowing float32 tables within 1e-3 turns from wrong_answer into accepted (float32 arithmetic, ~1e-4 off)
FLIPS = {"wrong_answer/float32_table.py"}


def _submit(client, files: list[str], callback: str | None = None) -> list[str]:  # noqa: ANN001
    return submit_batch(client, [(REPO / "submissions" / "sinusoidal-pe" / f).read_text() for f in files], callback)


def _finished(client, rid: str, timeout: float) -> dict:  # noqa: ANN001
    return wait_for(lambda: (lambda v: v if v["state"] not in ("queued", "running") else None)(
        client.get(f"/v1/rejudges/{rid}").json()), timeout, interval=0.2, what=f"rejudge {rid}")


def test_a_changed_bundle_is_picked_up_then_rejudged_dry_applied_and_called_back(tmp_path):
    require_sandbox()
    problems = problems_copy(tmp_path / "problems")
    db = f"sqlite:///{tmp_path}/judge.sqlite3"
    listener = CallbackListener()
    env = service_env(JUDGE_API_TOKENS=f"lms:{TOKEN}", JUDGE_PROBLEMS_DIR=str(problems),
                      JUDGE_CALLBACK_POLL_SECONDS="0.1", JUDGE_CALLBACK_BACKOFF_SECONDS="0.1")
    server = Server(tmp_path, db, env)
    try:
        with server.client(TOKEN) as client:
            ids = _submit(client, FILES, listener.url)
            before = wait_done(client, ids, 120)
            statuses = {f: before[i]["verdict"]["status"] for f, i in zip(FILES, ids)}
            assert statuses == {f: f.split("/")[0] for f in FILES}
            old_digest = before[ids[0]]["verdict"]["problem_digest"]
            wait_for(lambda: set(ids) <= set(listener.delivered()), 30, what="the first callbacks")

            # a case added on disk with the judge's own tool: the next submission is graded with it, no restart
            added = subprocess.run([sys.executable, "-m", "judge", "case", "add", str(problems / "sinusoidal-pe"),
                                    "-f", "sinusoidal_pe", "--args", '{"max_len": 3, "d_model": 6}', "--public",
                                    "--id", "added-3x6"], capture_output=True, text=True, cwd=REPO, timeout=120)
            assert added.returncode == 0, added.stderr
            [fresh] = _submit(client, FILES[:1])
            verdict = wait_done(client, [fresh], 60)[fresh]["verdict"]
            assert "added-3x6" in [c["id"] for c in verdict["cases"]] and verdict["problem_digest"] != old_digest

            _loosen(problems)
            created = client.post("/v1/rejudges", json={"problem": "sinusoidal-pe", "dry_run": True})
            assert created.status_code == 202, created.text
            rid = created.json()["id"]
            view = _finished(client, rid, 120)
            assert view["state"] == "done" and view["total"] == view["graded"] == len(FILES) + 1
            assert view["matrix"]["wrong_answer"]["accepted"] == len(FLIPS)
            assert view["matrix"]["accepted"] == {"accepted": 3}
            # changed: a status or a score (the new case counts in every score)
            changed = {c["submission"] for c in view["changed"]}
            flipped = {c["submission"] for c in view["changed"] if c["old"] != c["new"]}
            assert flipped == {i for f, i in zip(FILES, ids) if f in FLIPS}
            assert all((c["old"], c["new"]) == ("wrong_answer", "accepted") for c in view["changed"]
                       if c["submission"] in flipped)
            assert all(c["old_score"] != c["new_score"] for c in view["changed"] if c["submission"] not in flipped)
            # a dry run changes nothing anyone sees
            for sub_id in flipped:
                assert client.get(f"/v1/submissions/{sub_id}").json()["verdict"]["status"] == "wrong_answer"

            applied = client.post(f"/v1/rejudges/{rid}/apply")
            assert applied.status_code == 200 and applied.json()["state"] == "applied", applied.text
            for f, sub_id in zip(FILES, ids):
                now = client.get(f"/v1/submissions/{sub_id}").json()["verdict"]
                assert now["status"] == ("accepted" if f in FLIPS else f.split("/")[0])
                if f in FLIPS:
                    assert now["problem_digest"] == view["digest"] != old_digest
            assert client.post(f"/v1/rejudges/{rid}/cancel").status_code == 409
            assert client.post(f"/v1/rejudges/{rid}/apply").status_code == 409

        delivered = wait_for(lambda: (lambda d: d if all(len(d.get(i, [])) == 2 for i in changed) else None)(
            listener.delivered()), 30, what="the changed submissions' second callbacks")
        for sub_id in ids:
            expected = 2 if sub_id in changed else 1
            assert len(delivered[sub_id]) == expected, (sub_id, len(delivered[sub_id]))
        for sub_id in flipped:
            assert body_json(delivered[sub_id][-1])["verdict"]["status"] == "accepted"
        from judge.service.rejudge import RejudgeStore

        store = Store(db)
        [old] = RejudgeStore(store).history_of(next(iter(flipped)))
        assert old["status"] == "wrong_answer" and old["rejudge_id"] == rid
        store.close()

        # the command line: nothing changes now, and it says so
        cli = subprocess.run([sys.executable, "-m", "judge", "rejudge", "sinusoidal-pe", "--url", server.url,
                              "--token", TOKEN], capture_output=True, text=True, cwd=REPO, timeout=180)
        assert cli.returncode == 0, cli.stderr
        assert "0 submissions change" in cli.stdout and "accepted" in cli.stdout, cli.stdout
    finally:
        server.stop()
        listener.stop()


def test_a_rejudge_of_a_hundred_with_celery_redis_and_postgresql(tmp_path, redis, postgres):
    require_sandbox()
    problems = problems_copy(tmp_path / "problems")
    db = postgres.new_database()
    env = service_env(JUDGE_API_TOKENS=f"lms:{TOKEN}", JUDGE_PROBLEMS_DIR=str(problems),
                      JUDGE_VISIBILITY_TIMEOUT="30", JUDGE_RESTORE_INTERVAL="1")
    server = Server(tmp_path, db, env, broker=redis.url, name="serve-rejudge")
    worker = None
    try:
        worker = Worker(tmp_path, "rj1", redis.url, db, env, concurrency=2)
        with server.client(TOKEN) as client:
            ids = _submit(client, FILES)
            wait_done(client, ids, 120)
            copies = _replicate(db, ids, 20)  # 5 + 100 stored submissions (bench/ measures larger ones)
            _loosen(problems)
            started = time.monotonic()
            rid = client.post("/v1/rejudges", json={"problem": "sinusoidal-pe", "dry_run": True}).json()["id"]
            # a live submission during the rejudge is judged at once: the rejudge yields to it
            [live] = _submit(client, FILES[2:3])
            live_done = wait_done(client, [live], 60)[live]
            assert live_done["verdict"]["status"] == "wrong_answer"
            view = _finished(client, rid, 600)
            dry_seconds = time.monotonic() - started
            total = len(ids) + len(copies)
            assert view["state"] == "done" and view["total"] == view["graded"] == total, view
            flipped = len(FLIPS) * (1 + 20)
            assert view["matrix"]["wrong_answer"]["accepted"] == flipped
            assert sum(sum(row.values()) for row in view["matrix"].values()) == total
            started = time.monotonic()
            applied = client.post(f"/v1/rejudges/{rid}/apply").json()
            apply_seconds = time.monotonic() - started
            assert applied["state"] == "applied"
            store = Store(db)
            statuses = {store.get(i).status for i in copies[1::5]}  # the float32_table copies
            assert statuses == {"accepted"}, statuses
            store.close()
        print(f"\nrejudge of {total} stored submissions (Celery, 1 worker x 2, PostgreSQL): dry run "
              f"{dry_seconds:.1f} s, apply {apply_seconds:.2f} s; a live submission meanwhile took "
              f"{live_done['finished_at']} - {live_done['created_at']}")
    finally:
        if worker is not None:
            worker.stop()
        server.stop()
