"""What many machines need from the service's parts, tested on one: bundle versions that travel with a job
(fetched from the store by a worker whose copy differs), worker slots for an autoscaler, the age of the
oldest queued submission, the sweeper that publishes again what the broker lost (a real Redis), and a
schema made before ``problem_digest`` existed.  The same behaviours across real hosts are in
tests/hosts/test_hosts_*.py."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import pytest
from sqlalchemy import text

from judge.problem.loader import load_problem
from judge.service.bundle_versions import BundleUnavailable, BundleVersions, archive_of
from judge.service.claims import ALIVE_SECONDS, Claims  # its table, made by the store fixture
from judge.service.settings import Settings
from judge.service.store import NewSubmission, Store
from judge.service.worker_slots import STALE_SECONDS, SlotRegistry
from tests.support.problems import problems_copy
from tests.support.service import Redis

REPO = Path(__file__).resolve().parents[2]


def add_case_note(problem_dir: Path) -> None:
    """A change an author makes to the cases file (a note), so the bundle's digest changes."""
    cases = problem_dir / "cases.yaml"
    cases.write_text(cases.read_text() + "\n# reviewed after the workers were deployed\n")


def test_a_worker_with_another_copy_grades_the_version_the_api_accepted(store, tmp_path, monkeypatch):
    api_problems = problems_copy(tmp_path / "api", "sinusoidal-pe")
    worker_problems = problems_copy(tmp_path / "worker", "sinusoidal-pe")
    add_case_note(api_problems / "sinusoidal-pe")  # the API's copy is ahead of the worker's

    monkeypatch.setenv("JUDGE_PROBLEMS_DIR", str(api_problems))
    api = BundleVersions(store, cache_dir=tmp_path / "api-cache")
    digest = api.current("sinusoidal-pe")
    assert digest == load_problem(api_problems / "sinusoidal-pe").digest
    [(row, _)] = store.create([NewSubmission(platform="lms", problem="sinusoidal-pe", source="x = 1",
                                             problem_digest=digest)], 10)
    assert store.get(row.id).problem_digest == digest

    monkeypatch.setenv("JUDGE_PROBLEMS_DIR", str(worker_problems))
    worker = BundleVersions(store, cache_dir=tmp_path / "worker-cache")
    assert worker.local_digest("sinusoidal-pe") != digest
    root = worker.root_for("sinusoidal-pe", digest)
    assert isinstance(root, Path) and root.is_relative_to(tmp_path / "worker-cache")
    assert load_problem(root).digest == digest
    assert "after the workers were deployed" in (root / "cases.yaml").read_text()
    assert worker.root_for("sinusoidal-pe", digest) == root  # the second time from its cache
    # its own version needs no fetch, and a submission from before versions travelled keeps the id
    own = worker.local_digest("sinusoidal-pe")
    assert worker.root_for("sinusoidal-pe", own) == "sinusoidal-pe"
    assert worker.root_for("sinusoidal-pe", None) == "sinusoidal-pe"
    with pytest.raises(BundleUnavailable, match="neither in this worker's problems folder"):
        worker.root_for("sinusoidal-pe", "0" * 16)


def test_a_stored_version_that_does_not_give_its_digest_is_refused(store, tmp_path, monkeypatch):
    problems = problems_copy(tmp_path / "p", "sinusoidal-pe")
    monkeypatch.setenv("JUDGE_PROBLEMS_DIR", str(problems))
    from judge.service.db.schema import bundles

    archive = archive_of(problems / "sinusoidal-pe")
    with store._write() as conn:
        conn.execute(bundles.insert().values(digest="f" * 16, problem="sinusoidal-pe", archive=archive,
                                             created_at=time.time()))
    with pytest.raises(BundleUnavailable, match="unpacks to"):
        BundleVersions(store, cache_dir=tmp_path / "cache").root_for("sinusoidal-pe", "f" * 16)
    assert not list((tmp_path / "cache").glob("sinusoidal-pe-*"))  # nothing half made is left to use


def test_the_archive_is_reproducible_and_leaves_caches_out(tmp_path):
    problems = problems_copy(tmp_path / "p", "sinusoidal-pe")
    root = problems / "sinusoidal-pe"
    (root / "__pycache__").mkdir()
    (root / "__pycache__" / "reference.cpython-311.pyc").write_bytes(b"\0" * 100)
    first = archive_of(root)
    time.sleep(1.1)  # a second later: nothing in the archive may say when it was made
    assert archive_of(root) == first
    import io
    import tarfile

    names = tarfile.open(fileobj=io.BytesIO(first)).getnames()
    assert "problem.yaml" in names and not any("__pycache__" in n for n in names)


def test_worker_slots_add_up_and_forget_the_silent(store):
    slots = SlotRegistry(store)
    now = time.time()
    slots.beat("w1", 2, 1, now)
    slots.beat("w2", 1, 1, now)
    slots.beat("w3", 4, 0, now - STALE_SECONDS - 1)  # killed or cut off: no longer counted
    fleet = slots.fleet(now)
    assert (fleet.workers, fleet.busy, fleet.idle) == (2, 2, 1)
    slots.beat("w1", 2, 0, now + 1)
    assert slots.fleet(now + 1).idle == 2
    slots.leave("w2")
    assert slots.fleet(now + 1).workers == 1


def test_oldest_queued_age_and_lost_candidates(store):
    assert store.oldest_queued_age(time.time()) == 0.0
    rows = [r for r, _ in store.create([NewSubmission(platform="lms", problem="sinusoidal-pe", source=str(i))
                                        for i in range(3)], 10)]
    created = rows[0].created_at
    assert store.oldest_queued_age(created + 7) == pytest.approx(7, abs=0.01)
    assert store.lost_candidates(created + 100, created + 100) == []  # never published: not the sweeper's
    store.mark_enqueued([r.id for r in rows])
    store.claim(rows[2].id, "w1")
    later = time.time() + 1
    assert store.lost_candidates(later, 0) == [rows[0].id, rows[1].id]
    assert store.lost_candidates(0, later) == [rows[2].id]
    assert store.lost_candidates(0, 0) == []


def test_a_schema_from_before_problem_digest_gains_the_column(tmp_path):
    path = tmp_path / "old.sqlite3"
    with sqlite3.connect(path) as conn:  # the table as an earlier release made it
        conn.execute("CREATE TABLE judge_submissions (id VARCHAR(32) PRIMARY KEY, platform VARCHAR(64) NOT NULL,"
                     " problem VARCHAR(200) NOT NULL, source TEXT NOT NULL, callback_url TEXT, metadata_json TEXT,"
                     " idempotency_key VARCHAR(255), request_hash VARCHAR(64), state VARCHAR(16) NOT NULL,"
                     " status VARCHAR(32), verdict_json TEXT, created_at FLOAT NOT NULL, enqueued_at FLOAT,"
                     " started_at FLOAT, finished_at FLOAT, attempts INTEGER NOT NULL, worker VARCHAR(255),"
                     " callback_state VARCHAR(16) NOT NULL, callback_attempts INTEGER NOT NULL,"
                     " callback_next_at FLOAT, callback_error TEXT)")
        conn.execute("INSERT INTO judge_submissions VALUES ('old', 'lms', 'p', 's', NULL, NULL, NULL, NULL, 'done',"
                     " 'accepted', '{}', 1.0, 1.0, 1.0, 2.0, 1, 'w', 'none', 0, NULL, NULL)")
    store = Store(f"sqlite:///{path}")
    store.create_schema()
    store.create_schema()  # a second start adds nothing twice
    [(row, _)] = store.create([NewSubmission(platform="lms", problem="p", source="s", problem_digest="abc")], 5)
    assert store.get(row.id).problem_digest == "abc" and store.get(row.id).verdict_version == 0
    assert store.get("old").verdict_version == 1, "a verdict from before versions were counted is the first"
    store.close()


def _queue(server, settings) -> list[bytes]:
    import redis as redis_client

    client = redis_client.Redis.from_url(server.url)
    try:
        return client.lrange(settings.queue_name, 0, -1)
    finally:
        client.close()


def test_the_sweeper_publishes_again_what_the_broker_lost(store, tmp_path):
    """A real Redis: published jobs are found in the broker; after the broker loses them (FLUSHALL, as a
    restart without persistence does), the second sweep that misses them publishes them again, once."""
    import redis as redis_client

    from judge.service.celery_app import CeleryBackend, submission_of

    server = Redis()
    try:
        settings = Settings(db_url=store.url, broker_url=server.url, sweep_seconds=1, sweep_grace_seconds=0)
        backend = CeleryBackend(store, settings)
        rows = [r for r, _ in store.create([NewSubmission(platform="lms", problem="sinusoidal-pe", source=str(i))
                                            for i in range(3)], 10)]
        ids = {r.id for r in rows}
        backend.submit(sorted(ids))
        assert backend.ids_in_broker() == ids
        with backend.app.connection_for_read() as conn:  # a worker takes one and holds it (prefetched, running)
            message = conn.default_channel.basic_get(settings.queue_name, no_ack=False)
            taken = message.headers["id"].split(".")[0]
            assert taken in ids and taken not in {submission_of(raw) for raw in _queue(server, settings)}
            assert backend.ids_in_broker() == ids  # held, so still the broker's: not published again
            message.ack()
        assert backend.ids_in_broker() == ids - {taken}
        backend.submit([taken])
        now = time.time() + 1
        assert backend.sweep(now) == [] and backend.sweep(now + 1) == []  # all there: nothing published

        client = redis_client.Redis.from_url(server.url)
        client.flushall()
        assert backend.ids_in_broker() == set()
        assert backend.sweep(now + 2) == []            # missing once: maybe a worker is taking it
        assert set(backend.sweep(now + 3)) == ids      # missing twice: published again
        assert backend.ids_in_broker() == ids and client.llen(settings.queue_name) == 3
        assert backend.sweep(now + 4) == []            # found again: not published a third time
        client.close()
        backend.stop()
    finally:
        server.stop()


def test_a_submission_whose_worker_is_lost_every_time_ends_with_an_internal_error(store):
    """A file that takes its worker down (a container's OOM kill, a host lost) would come back from the broker
    forever; the claim after three dead ones stores an internal error instead of judging it again."""
    from judge.service.worker import MAX_ATTEMPTS, process_submission

    class NoJudging:
        def grade(self, *_args, **_kwargs):
            raise AssertionError("judged again")

    [(row, _)] = store.create([NewSubmission(platform="lms", problem="sinusoidal-pe", source="x = 1")], 5)
    long_ago = time.time() - ALIVE_SECONDS - 60
    for n in range(MAX_ATTEMPTS):  # each attempt's worker was lost before it stored a verdict: its claim went silent
        store.claim(row.id, f"w{n}")
        Claims(store).open(row.id, f"w{n}", now=long_ago + n)
    assert process_submission(store, NoJudging(), row.id, "w9") == "stored"
    done = store.get(row.id)
    assert done.state == "done" and done.status == "internal_error" and done.attempts == MAX_ATTEMPTS + 1
    assert f"started this submission {MAX_ATTEMPTS} times" in done.verdict_json
    with store._read() as conn:  # a judged submission's claims are history
        assert conn.execute(text("SELECT count(*) FROM judge_claims")).scalar_one() == 0


def test_copies_still_running_are_not_failed_attempts(store):
    """Copies of one job running at once (a broker's redelivery after its visibility timeout, the sweeper's
    republish) hold live claims: however many there are, the next copy judges the job; only silent claims count."""
    from judge.service.worker import MAX_ATTEMPTS, process_submission

    class Judging:
        def grade(self, source, problem, **_kwargs):
            from judge.service.worker import internal_error

            verdict = internal_error(str(problem), "stand-in")
            return verdict.model_copy(update={"message": "graded by this copy"})

    [(row, _)] = store.create([NewSubmission(platform="lms", problem="sinusoidal-pe", source="x = 1")], 5)
    claims = Claims(store)
    for n in range(MAX_ATTEMPTS + 2):  # live copies, beating
        store.claim(row.id, f"live{n}")
        claims.open(row.id, f"live{n}")
    claims.open(row.id, "lost", now=time.time() - ALIVE_SECONDS - 1)  # and one that died
    assert process_submission(store, Judging(), row.id, "w9") == "stored"
    assert "graded by this copy" in store.get(row.id).verdict_json
