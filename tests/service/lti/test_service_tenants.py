"""What one tenant can do to the others, over real HTTP with a real `judge serve` (embedded, real sandbox), five
platform tokens and the test LMS: a token's burst fills its own share of the queue and gets its own 429, never
anyone else's 503; a rejudge belongs to its caller (a token's covers its own submissions, and no other token or
course sees, applies or cancels it); one caller's rejudge calls cannot fill the store."""

from __future__ import annotations

import json
import time

import httpx
from sqlalchemy import func, select

from judge.service.store import Store
from tests.support.common import REPO
from tests.support.lti_client import INSTRUCTOR, _member, _teacher, launch, submit_and_wait
from tests.support.service import SOURCES, CallbackListener, Server, body_json, list_pages, wait_done, wait_for

TOKENS = {name: f"{name}-token-0123456789" for name in ("alpha", "beta", "gamma", "delta", "eps")}
PER_TENANT, MAX_PENDING, MAX_REJUDGE_ITEMS = 3, 6, 2
FLOAT32 = (REPO / "submissions" / "sinusoidal-pe" / "wrong_answer" / "float32_table.py").read_text()


MEMBERS = {"course-1": [_member("t-1", "Grace Teacher", INSTRUCTOR), _member("s-1", "Ada")]}
TOOL_ON_A_COPY = True  # the last test changes the bundle on disk
TOOL_ENV = {"JUDGE_API_TOKENS": ",".join(f"{k}:{v}" for k, v in TOKENS.items()), "JUDGE_MAX_PENDING": str(MAX_PENDING),
            "JUDGE_MAX_PENDING_PER_TENANT": str(PER_TENANT), "JUDGE_MAX_REJUDGE_ITEMS": str(MAX_REJUDGE_ITEMS),
            "JUDGE_LEARNER_RATE_LIMIT": "1000:10000"}


def _client(server: Server, name: str) -> httpx.Client:
    return server.client(TOKENS[name])


def _post(client: httpx.Client, source: str, **extra) -> httpx.Response:
    return client.post("/v1/submissions", json={"problem": "sinusoidal-pe", "source": source, **extra})


def test_one_tokens_burst_gets_its_own_429_and_nobody_elses_503(platform, server):
    with _client(server, "alpha") as alpha, _client(server, "beta") as beta:
        burst = [_post(alpha, SOURCES["time_limit_exceeded"]) for _ in range(MAX_PENDING)]
        try:
            _only_alpha_is_refused(platform, server, burst, beta)
        finally:  # the next tests run on a quiet queue
            wait_done(alpha, [r.json()["id"] for r in burst if r.status_code == 202], 180)


def _only_alpha_is_refused(platform, server, burst: list[httpx.Response], beta: httpx.Client) -> None:  # noqa: ANN001
    """Beta and an LMS learner still get in after alpha's burst; alpha's past its share is refused."""
    other = _post(beta, SOURCES["compile_error"])
    assert other.status_code == 202, "another token is not refused for alpha's burst: " + other.text
    learner, csrf = launch(platform, server, "s-1")
    page = learner.post("/lti/api/submissions", json={"source": SOURCES["compile_error"]},
                        headers={"X-CSRF-Token": csrf})
    assert page.status_code == 202, "an LMS learner is not refused for alpha's burst: " + page.text
    assert [r.status_code for r in burst] == [202] * PER_TENANT + [429] * (MAX_PENDING - PER_TENANT), \
        [r.text for r in burst]
    refused = burst[-1]
    assert refused.json()["code"] == "tenant_queue_full" and refused.headers["Retry-After"]


def _items_of(server: Server, caller: str) -> int:
    from judge.service.db.schema import items, rejudges

    store = Store(server.db)
    try:
        with store._read() as conn:
            return conn.execute(
                select(func.count())
                .select_from(items.join(rejudges, rejudges.c.id == items.c.rejudge_id))
                .where(rejudges.c.requested_by == caller)
            ).scalar_one()
    finally:
        store.close()


def test_one_callers_rejudge_calls_cannot_fill_the_store(server):
    """A rejudge call writes a row per submission it covers: twenty calls in a row make one open rejudge (the
    rest are told which one is open), and a rejudge covers at most JUDGE_MAX_REJUDGE_ITEMS submissions."""
    with _client(server, "gamma") as gamma, _client(server, "eps") as eps:
        mine = _post(gamma, SOURCES["time_limit_exceeded"]).json()["id"]  # slow to rejudge: the calls overlap it
        wait_done(gamma, [mine], 120)
        answers = [gamma.post("/v1/rejudges", json={"problem": "sinusoidal-pe", "dry_run": True}) for _ in range(20)]
        codes = [a.status_code for a in answers]
        assert codes[0] == 202 and 409 in codes and set(codes) <= {202, 409}, codes
        busy = next(a for a in answers if a.status_code == 409)
        assert busy.json()["code"] == "rejudge_open" and busy.headers["Location"].startswith("/v1/rejudges/")
        assert _items_of(server, "gamma") == 1, "one open rejudge's rows, not one set per call"

        many = eps.post("/v1/submissions/batch", json={"submissions": [
            {"problem": "sinusoidal-pe", "source": SOURCES["compile_error"]}] * (MAX_REJUDGE_ITEMS + 1)})
        wait_done(eps, [s["id"] for s in many.json()["submissions"]], 120)
        too_many = eps.post("/v1/rejudges", json={"problem": "sinusoidal-pe", "dry_run": True})
        assert too_many.status_code == 422 and too_many.json()["code"] == "rejudge_too_large", too_many.text
        assert _items_of(server, "eps") == 0


def test_no_token_lists_an_lms_learners_submissions(platform, server):
    """The LMS's learners' submissions are stored with ``metadata.learner`` like a platform's: no token's listing
    shows them, not even one that asks for that very learner."""
    learner, csrf = launch(platform, server, "s-9", course="course-listing")  # not course-1's class: its rejudge
    created = learner.post("/lti/api/submissions", json={"source": SOURCES["compile_error"]},
                           headers={"X-CSRF-Token": csrf})
    assert created.status_code == 202, created.text
    store = Store(server.db)
    try:
        row = store.get(created.json()["id"])
    finally:
        store.close()
    assert row is not None and row.platform.startswith("lti:") and row.metadata_json
    who = json.loads(row.metadata_json)["learner"]
    for name in TOKENS:
        with _client(server, name) as client:
            assert list_pages(client, learner=who)[0] == [], name
            assert row.id not in {i["id"] for i in list_pages(client, limit=200)[0]}, name


def test_a_rejudge_belongs_to_its_caller(platform, server):
    """Last in this file: it changes the bundle on disk (float32 tables allowed within 1e-3).  Delta's rejudge
    regrades delta's submissions only: beta's wrong answer, which the new bundle would accept, and an LMS
    learner's are left alone (no second callback, no new grade), and no other token or course reaches it."""
    from tests.support.problems import _loosen

    listener = CallbackListener()
    try:
        with _client(server, "delta") as delta, _client(server, "beta") as beta:
            [mine] = [_post(delta, SOURCES["accepted"]).json()["id"]]
            theirs = _post(beta, FLOAT32, callback_url=listener.url).json()["id"]
            wait_done(delta, [mine], 120)
            assert wait_done(beta, [theirs], 120)[theirs]["verdict"]["status"] == "wrong_answer"
            wait_for(lambda: theirs in listener.delivered(), 30, what="beta's first callback")
            graded = lambda: [s for s in platform.scores  # noqa: E731
                              if s["score"]["userId"] == "s-1" and s["score"]["gradingProgress"] == "FullyGraded"]
            earlier = len(graded())
            learner, csrf = launch(platform, server, "s-1")
            assert submit_and_wait(learner, csrf, FLOAT32)["verdict"]["status"] == "wrong_answer"
            wait_for(lambda: len(graded()) > earlier, 30, what="the learner's grade")
            teacher, teacher_csrf = _teacher(platform, server)
            course = teacher.post("/lti/api/class/rejudges", headers={"X-CSRF-Token": teacher_csrf})
            assert course.status_code == 202, course.text

            _loosen(server.problems)
            created = delta.post("/v1/rejudges", json={"problem": "sinusoidal-pe", "dry_run": False})
            assert created.status_code == 202, created.text
            rid = created.json()["id"]
            view = wait_for(lambda: (lambda v: v if v["state"] == "applied" else None)(
                delta.get(f"/v1/rejudges/{rid}").json()), 120, 0.2, "delta's rejudge")
            assert view["total"] == 1 and view["requested_by"] == "delta", view

            for path in (f"/v1/rejudges/{rid}", f"/v1/rejudges/{course.json()['id']}"):
                assert beta.get(path).status_code == 404, path
            assert delta.get(f"/v1/rejudges/{course.json()['id']}").status_code == 404, "a course's is not a token's"
            assert beta.post(f"/v1/rejudges/{rid}/apply").status_code == 404
            assert beta.post(f"/v1/rejudges/{rid}/cancel").status_code == 404
            assert delta.get(f"/v1/rejudges/{rid}").json()["state"] == "applied", "beta's cancel did nothing"

            before = len(graded())
            time.sleep(3)  # the dispatchers poll every 0.1 s: a callback or a grade due would have gone by now
            untouched = beta.get(f"/v1/submissions/{theirs}").json()
            assert untouched["verdict"]["status"] == "wrong_answer" and untouched["verdict_version"] == 1
            assert len(listener.delivered()[theirs]) == 1, "no second callback for another token's submission"
            assert len(graded()) == before, "no new grade for an LMS learner"

            own = beta.post("/v1/rejudges", json={"problem": "sinusoidal-pe", "dry_run": False}).json()["id"]
            wait_for(lambda: beta.get(f"/v1/rejudges/{own}").json()["state"] == "applied", 120, 0.2, "beta's own")
            again = wait_for(lambda: (lambda d: d if len(d.get(theirs, [])) == 2 else None)(listener.delivered()),
                             30, what="beta's callback after its own rejudge")[theirs]
            assert body_json(again[1])["verdict"]["status"] == "accepted"
    finally:
        listener.stop()
