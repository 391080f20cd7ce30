"""The store's guarantees, on SQLite and on a real PostgreSQL: idempotent creation, a bounded queue,
claims, and one verdict per submission however many attempts race to store theirs."""

from __future__ import annotations

import threading
import time

import pytest

from judge.service.settings import Settings, SettingsError, parse_pairs
from judge.service.store import IdempotencyConflict, NewSubmission, PageQuery, QueueFull, Store
from tests.support.tiers import needs


@pytest.fixture(params=["sqlite", "postgresql"])
@needs("service", only_for="postgresql", among=("sqlite", "postgresql"))
def backend_store(request, tmp_path):
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path}/store.sqlite3"
    else:
        url = request.getfixturevalue("postgres").new_database()
    s = Store(url)
    s.create_schema()
    s.create_schema()  # idempotent
    yield s
    s.close()


def new(key: str | None = None, source: str = "x = 1", platform: str = "lms", callback: str | None = None):
    return NewSubmission(platform=platform, problem="sinusoidal-pe", source=source, idempotency_key=key,
                         callback_url=callback)


def test_create_idempotent_and_conflicting(backend_store):
    [(row, replayed)] = backend_store.create([new("k1")], 10)
    assert not replayed and row.state == "queued"
    [(again, replayed)] = backend_store.create([new("k1")], 10)
    assert replayed and again.id == row.id
    with pytest.raises(IdempotencyConflict):
        backend_store.create([new("k1", source="y = 2")], 10)
    [(other, replayed)] = backend_store.create([new("k1", platform="other")], 10)
    assert not replayed and other.id != row.id


def test_concurrent_same_key_gives_one_submission(backend_store):
    ids, errors = [], []

    def go() -> None:
        try:
            ids.append(backend_store.create([new("same")], 100)[0][0].id)
        except Exception as exc:  # noqa: BLE001
            errors.append(exc)
    threads = [threading.Thread(target=go) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(set(ids)) == 1 and len(ids) == 8


def test_queue_bound_is_all_or_nothing(backend_store):
    backend_store.create([new(), new()], 3)
    with pytest.raises(QueueFull):
        backend_store.create([new(), new()], 3)
    assert backend_store.pending_count() == 2


def test_claim_finish_once(backend_store):
    ids = [row.id for row, _ in backend_store.create([new(), new(callback="http://127.0.0.1/x")], 10)]
    assert backend_store.pending_ids() == ids
    row = backend_store.claim(ids[0], "w1")
    assert row.state == "running" and row.attempts == 1 and row.worker == "w1"
    assert backend_store.claim(ids[0], "w2").attempts == 2  # redelivered after a crash: judged again
    assert backend_store.finish(ids[0], '{"status": "accepted"}', "accepted") is True
    assert backend_store.finish(ids[0], '{"status": "wrong_answer"}', "wrong_answer") is False
    assert backend_store.get(ids[0]).status == "accepted" and backend_store.claim(ids[0], "w3") is None
    assert backend_store.get(ids[0]).callback_state == "none"
    assert backend_store.pending_ids() == ids[1:]
    assert backend_store.get(ids[0], platform="someone-else") is None


def test_racing_verdicts_store_exactly_one(backend_store):
    [(row, _)] = backend_store.create([new()], 10)
    wins: list[str] = []
    barrier = threading.Barrier(10)

    def attempt(n: int) -> None:
        barrier.wait()
        if backend_store.finish(row.id, f'{{"n": {n}}}', f"status{n}"):
            wins.append(f"status{n}")
    threads = [threading.Thread(target=attempt, args=(n,)) for n in range(10)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(wins) == 1 and backend_store.get(row.id).status == wins[0]


def test_callback_claims_are_exclusive(backend_store):
    [(row, _)] = backend_store.create([new(callback="http://127.0.0.1/hook")], 10)
    assert backend_store.due_callbacks(time.time()) == []
    backend_store.finish(row.id, "{}", "accepted")
    [due] = backend_store.due_callbacks(time.time() + 1)
    lease = time.time() + 60
    assert backend_store.claim_callback(row.id, due.callback_attempts, lease) is True
    assert backend_store.claim_callback(row.id, due.callback_attempts, lease) is False  # another dispatcher
    assert backend_store.due_callbacks(time.time() + 1) == []  # leased
    backend_store.callback_result(row.id, False, "HTTP 500", time.time() - 1)
    assert [d.callback_attempts for d in backend_store.due_callbacks(time.time())] == [1]
    backend_store.callback_result(row.id, True, None, None)
    assert backend_store.get(row.id).callback_state == "delivered"
    stats = backend_store.stats()
    assert stats["statuses"] == {"accepted": 1} and stats["latency"]["count"] == 1


def _listed(store: Store, platform: str, limit: int = 200, **filters) -> list[str]:
    """Every id a platform's listing gives, page after page (each page seeks after the last row shown)."""
    ids: list[str] = []
    after = None
    while True:
        rows = store.page(platform, PageQuery(limit=limit, after=after, **filters))
        ids += [r.id for r in rows]
        if len(rows) < limit:
            return ids
        after = (rows[-1].created_at, rows[-1].id)


def test_a_listing_pages_through_its_own_rows_only_newest_first(backend_store):
    """Keyset pages cover each of the platform's rows once, newest first, rows with the same created_at
    included; other platforms' rows (another token, the LMS's and /learn's learners with the same
    metadata.learner) never appear, whatever the filter."""
    def item(platform: str, learner, problem: str = "sinusoidal-pe") -> NewSubmission:
        return NewSubmission(platform=platform, problem=problem, source="x = 1", metadata={"learner": learner})

    mine = [row.id for row, _ in backend_store.create([item("lms", "ada"), item("lms", "bo"),
                                                        item("lms", "ada", "other-problem"), item("lms", 5),
                                                        item("lms", "5")], 100)]
    for platform in ("other", "lti:learners", "learn:codes"):
        backend_store.create([item(platform, "ada"), item(platform, "5")], 100)
    with backend_store._write() as conn:  # three rows made in the same instant: the id breaks the tie
        conn.execute(backend_store.t.update().where(backend_store.t.c.id.in_(mine[1:4])).values(created_at=1000.0))
    everything = _listed(backend_store, "lms")
    assert sorted(everything) == sorted(mine) and len(everything) == 5
    assert _listed(backend_store, "lms", limit=1) == everything == _listed(backend_store, "lms", limit=2)
    created = {r.id: r.created_at for r in backend_store.page("lms", PageQuery(limit=10))}
    assert [created[i] for i in everything] == sorted(created.values(), reverse=True)
    assert set(_listed(backend_store, "lms", limit=1, learner="ada")) == {mine[0], mine[2]}
    assert _listed(backend_store, "lms", learner="5") == [mine[4]]  # the string "5", not the number 5
    assert _listed(backend_store, "lms", learner="ada", problem="other-problem") == [mine[2]]
    assert _listed(backend_store, "lms", since=1001.0) == [mine[4], mine[0]]
    for hostile in ("' OR 1=1 --", "ada' OR '1'='1", "$.learner", "%", "x" * 10_000):
        assert _listed(backend_store, "lms", learner=hostile) == [] == _listed(backend_store, "lms", problem=hostile)
    for platform in ("other", "lti:learners", "learn:codes"):
        assert not set(_listed(backend_store, platform)) & set(mine)
    assert _listed(backend_store, "nobody", learner="ada") == []


def test_a_listing_gives_the_score_without_the_verdict(backend_store):
    [(row, _)] = backend_store.create([new()], 10)
    assert backend_store.page("lms", PageQuery(limit=5))[0].score is None
    backend_store.finish(row.id, '{"status": "wrong_answer", "score": 0.75, "cases": []}', "wrong_answer")
    [listed] = backend_store.page("lms", PageQuery(limit=5))
    assert (listed.state, listed.status, listed.score) == ("done", "wrong_answer", 0.75) and listed.finished_at


def test_settings_from_env():
    s = Settings.from_env({"JUDGE_API_TOKENS": "lms:abc, moodle:def", "JUDGE_RATE_LIMIT": "5:50",
                           "JUDGE_CALLBACK_HOSTS": "LMS.example.org"})
    assert s.tokens == {"lms": "abc", "moodle": "def"} and (s.rate_per_second, s.rate_burst) == (5, 50)
    assert s.callback_hosts == ["lms.example.org"] and s.callback_key("lms") == b"abc" and s.mode == "embedded"
    for bad in ("lms", "lms:", "a b:c", "x:1,x:2"):
        with pytest.raises(SettingsError):
            parse_pairs(bad, "JUDGE_API_TOKENS")
    generated = Settings.from_env({})
    token = generated.ensure_token()
    assert token and generated.tokens == {"default": token} and len(token) >= 24


def test_a_public_verdict_is_shown_only_while_its_own_attempt_runs(backend_store):
    """The public phase's verdict is kept beside the running row, never as the verdict of record: a retried job's
    new attempt starts without it, an older attempt cannot write it back, the stored verdict replaces it."""
    from judge.service.schemas import submission_view

    [(row, _)] = backend_store.create([new()], 10)
    first = backend_store.claim(row.id, "w1")
    assert first is not None and backend_store.show_public(row.id, first.attempts, '{"phase": "public", "n": 1}')
    assert submission_view(backend_store.get(row.id))["verdict"] == {"phase": "public", "n": 1}
    second = backend_store.claim(row.id, "w2")  # the job again (its worker was lost): a fresh attempt
    assert second is not None and submission_view(backend_store.get(row.id))["verdict"] is None
    assert not backend_store.show_public(row.id, first.attempts, '{"phase": "public", "n": 1}'), "a stale attempt"
    assert backend_store.show_public(row.id, second.attempts, '{"phase": "public", "n": 2}')
    assert backend_store.finish(row.id, '{"phase": "final"}', "accepted")
    done = backend_store.get(row.id)
    assert done.public_verdict_json is None and submission_view(done)["verdict"] == {"phase": "final"}
    assert not backend_store.show_public(row.id, second.attempts, '{"phase": "public", "n": 3}'), "done is done"
