"""The whole HTTP API over real HTTP: a `judge serve` process (embedded mode, real sandbox) on loopback."""

from __future__ import annotations

import json
import time

import httpx
import pytest

from judge.service.callbacks import verify
from tests.support.common import REPO
from tests.support.service import (
    SOURCES,
    CallbackListener,
    Server,
    body_json,
    list_pages,
    require_sandbox,
    service_env,
    wait_done,
    wait_for,
)

TOKENS = {"alpha": "alpha-token-0123456789", "beta": "beta-token-9876543210"}
BETA_SECRET = "beta-callback-secret"


@pytest.fixture(scope="module")
def api_server(tmp_path_factory):
    require_sandbox()
    work = tmp_path_factory.mktemp("api")
    env = service_env(JUDGE_API_TOKENS=",".join(f"{k}:{v}" for k, v in TOKENS.items()),
                      JUDGE_CALLBACK_SECRETS=f"beta:{BETA_SECRET}", JUDGE_CALLBACK_HOSTS="127.0.0.1,localhost",
                      JUDGE_CALLBACK_BACKOFF_SECONDS="0.2", JUDGE_MAX_BATCH="5", JUDGE_MAX_BODY_BYTES="600000",
                      JUDGE_CALLBACK_MAX_ATTEMPTS="4")
    srv = Server(work, f"sqlite:///{work}/judge.sqlite3", env, workers=2)
    srv.db = f"sqlite:///{work}/judge.sqlite3"  # type: ignore[attr-defined]
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def alpha(api_server):
    with api_server.client(TOKENS["alpha"]) as c:
        yield c


@pytest.fixture(scope="module")
def beta(api_server):
    with api_server.client(TOKENS["beta"]) as c:
        yield c


def post(client: httpx.Client, kind: str, **extra) -> httpx.Response:
    params = extra.pop("params", None)
    headers = extra.pop("headers", None)
    return client.post("/v1/submissions", json={"problem": "sinusoidal-pe", "source": SOURCES[kind], **extra},
                       params=params, headers=headers)


def assert_error(response: httpx.Response, status: int, code: str | None = None) -> dict:
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) >= {"code", "message"} and body["message"], body
    if code is not None:
        assert body["code"] == code, body
    return body


# -- documentation and operations ----------------------------------------------------------
def test_openapi_and_docs_need_no_token(api_server):
    spec = httpx.get(api_server.url + "/openapi.json").json()
    for path in ("/v1/submissions", "/v1/submissions/{submission_id}", "/v1/submissions/batch", "/v1/problems",
                 "/v1/problems/{problem_id}", "/healthz", "/metrics"):
        assert path in spec["paths"], path
    assert "HTTPBearer" in json.dumps(spec["components"]["securitySchemes"])
    docs = httpx.get(api_server.url + "/docs")
    assert docs.status_code == 200 and "swagger" in docs.text.lower()


def test_openapi_documents_the_answers_the_server_gives(api_server):
    """The two mismatches schemathesis found: a 200 on POST (wait or replay), and which problem ids exist."""
    spec = httpx.get(api_server.url + "/openapi.json").json()
    assert "200" in spec["paths"]["/v1/submissions"]["post"]["responses"]
    assert "200" in spec["paths"]["/v1/submissions/batch"]["post"]["responses"]
    problem = spec["components"]["schemas"]["SubmissionIn"]["properties"]["problem"]
    from judge.problem.loader import available

    assert problem["enum"] == available() and "sinusoidal-pe" in problem["enum"]


def test_healthz(api_server):
    body = httpx.get(api_server.url + "/healthz").json()
    assert body["status"] == "ok" and body["mode"] == "embedded" and body["store"] == "ok"
    assert body["workers"] == 2


# -- problems --------------------------------------------------------------------------------
def test_problems(alpha):
    from judge.problem.course import find_course, in_course_order
    from judge.problem.loader import available

    listing = alpha.get("/v1/problems").json()["problems"]  # the course's order (problems/course.yaml)
    assert [p["id"] for p in listing] == in_course_order(available(), find_course()) and "sinusoidal-pe" in available()
    for problem in available():  # every bundle's page fits the documented model (schemathesis found one not)
        assert alpha.get(f"/v1/problems/{problem}").status_code == 200, problem
    page = alpha.get("/v1/problems/sinusoidal-pe").json()
    assert "positional" in page["statement"].lower()
    assert page["limits"]["case_wall_seconds"] == 4 and page["tolerance"]["atol"] > 0
    assert "numpy" in page["allowed_imports"]
    first = page["examples"][0]
    assert first["function"] == "sinusoidal_pe" and first["args"] == {"max_len": 3, "d_model": 4}
    assert first["expected"][1][0] == pytest.approx(0.8414709848)  # sin(1)
    from judge.problem.loader import load_problem

    public = [c.id for c in load_problem("sinusoidal-pe").cases.cases if c.visibility == "public"]
    assert [e["id"] for e in page["examples"]] == public and len(public) >= 3
    assert_error(alpha.get("/v1/problems/nope"), 404, "not_found")


# -- submissions -------------------------------------------------------------------------------
def test_submit_wait_returns_verdict(alpha):
    r = post(alpha, "accepted", params={"wait": "true"}, metadata={"learner": 17, "course": "ml-101"})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["state"] == "done" and body["verdict"]["status"] == "accepted" and body["verdict"]["score"] == 1.0
    assert body["verdict"]["isolation"]["mode"] == "full"
    assert body["metadata"] == {"learner": 17, "course": "ml-101"}
    assert body["created_at"] <= body["started_at"] <= body["finished_at"]
    assert r.headers["Location"] == f"/v1/submissions/{body['id']}"
    again = alpha.get(f"/v1/submissions/{body['id']}").json()
    assert again == body


def test_a_notebook_is_sent_as_its_text(alpha):
    """A notebook is submitted as the .ipynb file's text in ``source``: its functions are graded, its cells named."""
    from tests.support.notebook import twin

    crash = (REPO / "submissions" / "sinusoidal-pe" / "runtime_error" / "raises_index_error.py").read_text()
    r = alpha.post("/v1/submissions", params={"wait": "true"},
                   json={"problem": "sinusoidal-pe", "source": twin(crash, "colab", outputs=2000)})
    assert r.status_code == 200, r.text
    verdict = r.json()["verdict"]
    assert verdict["status"] == "runtime_error" and verdict["notebook"]["cells_used"], verdict["notebook"]
    assert "cell " in verdict["message"] and ", line " in verdict["message"], verdict["message"]


def test_submit_then_poll(alpha):
    r = post(alpha, "wrong_answer")
    assert r.status_code == 202, r.text
    body = r.json()
    assert body["state"] == "queued" and body["verdict"] is None and body["id"]
    done = wait_done(alpha, [body["id"]], 60)[body["id"]]
    assert done["verdict"]["status"] == "wrong_answer" and done["verdict"]["message"]
    compile_error = post(alpha, "compile_error", params={"wait": "true"}).json()
    assert compile_error["verdict"]["status"] == "compile_error"


def test_the_public_cases_verdict_comes_first_while_the_submission_runs(alpha):
    """GET shows the public phase's verdict while the hidden cases run (they pause ~3 s here), then the final one;
    the public one is never the verdict of record (its score is the public cases'; it is gone once done)."""
    from tests.support.sources import SLOW_HIDDEN

    r = alpha.post("/v1/submissions", json={"problem": "sinusoidal-pe", "source": SLOW_HIDDEN % {"pause": 0.8}})
    assert r.status_code == 202, r.text
    sub_id = r.json()["id"]
    seen: list[tuple[str, str | None]] = []

    def phases() -> bool:
        body = alpha.get(f"/v1/submissions/{sub_id}").json()
        verdict = body["verdict"]
        seen.append((body["state"], verdict and verdict["phase"]))
        if verdict is not None and verdict["phase"] == "public":
            assert body["state"] == "running" and verdict["status"] == "accepted" and verdict["score"] == 1.0
            assert {c["visibility"] for c in verdict["cases"]} == {"public"}, "the public run's cases only"
        return body["state"] == "done"

    wait_for(phases, 60, interval=0.1, what="the submission's verdicts")
    order = [phase for _, phase in dict.fromkeys(seen)]
    assert ("running", "public") in seen and order.index("public") < order.index("final"), seen
    final = alpha.get(f"/v1/submissions/{sub_id}").json()["verdict"]
    assert final["phase"] == "final" and final["status"] == "accepted" and len(final["cases"]) == 22


def test_wait_is_bounded(alpha):
    started = time.monotonic()
    r = post(alpha, "time_limit_exceeded", params={"wait": "true", "timeout": "0.5"})
    assert r.status_code == 202 and r.json()["state"] in ("queued", "running")
    assert time.monotonic() - started < 3


# -- auth and isolation ------------------------------------------------------------------------------
def test_auth_required(api_server):
    with api_server.client(None) as anonymous:
        for response in (anonymous.get("/v1/problems"), anonymous.post("/v1/submissions", json={})):
            assert_error(response, 401, "unauthorized")
            assert response.headers["WWW-Authenticate"] == "Bearer"
    with api_server.client("not-a-token") as stranger:
        assert_error(stranger.get("/v1/problems"), 401, "unauthorized")
    r = httpx.get(api_server.url + "/v1/problems", headers={"Authorization": f"Basic {TOKENS['alpha']}"})
    assert_error(r, 401, "unauthorized")


def test_platforms_see_only_their_own(alpha, beta):
    mine = post(alpha, "accepted").json()["id"]
    theirs = post(beta, "accepted").json()["id"]
    assert alpha.get(f"/v1/submissions/{mine}").status_code == 200
    assert beta.get(f"/v1/submissions/{theirs}").status_code == 200
    assert_error(beta.get(f"/v1/submissions/{mine}"), 404, "not_found")
    assert_error(alpha.get(f"/v1/submissions/{theirs}"), 404, "not_found")
    assert_error(alpha.get("/v1/submissions/does-not-exist"), 404, "not_found")


def test_a_token_lists_its_own_submissions_and_nobody_elses(api_server, alpha, beta):
    """Newest first, a page at a time; another token's submissions never show, not through a learner both
    platforms name, nor through a cursor copied from the other token or edited; anonymous clients get 401."""
    learner = f"shared-{time.time_ns()}"   # a learner id both platforms happen to use
    mine = [post(alpha, "compile_error", metadata={"learner": learner, "n": n}).json()["id"] for n in range(3)]
    post(alpha, "compile_error", metadata={"learner": learner + "-other"})
    theirs = [post(beta, "compile_error", metadata={"learner": learner}).json()["id"] for _ in range(2)]
    items, cursors = list_pages(alpha, learner=learner, limit=1)
    assert [i["id"] for i in items] == mine[::-1] and len(cursors) == 2
    assert set(items[0]) == {"id", "state", "problem", "created_at", "finished_at", "status", "score", "metadata",
                             "url"} and items[0]["metadata"] == {"learner": learner, "n": 2}
    assert alpha.get(items[0]["url"]).json()["id"] == mine[2]
    everything, _ = list_pages(alpha, limit=200)
    assert set(mine) <= {i["id"] for i in everything} and not {i["id"] for i in everything} & set(theirs)
    beta_items, beta_cursors = list_pages(beta, learner=learner, limit=1)
    assert [i["id"] for i in beta_items] == theirs[::-1]
    assert_error(alpha.get("/v1/submissions", params={"cursor": beta_cursors[0]}), 400, "invalid_cursor")
    assert_error(beta.get("/v1/submissions", params={"cursor": cursors[0]}), 400, "invalid_cursor")
    body, sig = cursors[0].split(".")
    tampered = ("A" if body[0] != "A" else "B") + body[1:]
    assert_error(alpha.get("/v1/submissions", params={"cursor": f"{tampered}.{sig}"}), 400, "invalid_cursor")
    with api_server.client(None) as anonymous:
        assert_error(anonymous.get("/v1/submissions"), 401, "unauthorized")
    with api_server.client("not-a-token") as stranger:
        assert_error(stranger.get("/v1/submissions", params={"cursor": cursors[0]}), 401, "unauthorized")


def test_listing_filters_refuse_bad_values_and_never_fail(alpha):
    """SQL-ish, huge and malformed filter values: a 4xx naming the parameter, or an empty page; never a 500."""
    for params in ({"limit": 0}, {"limit": 201}, {"limit": "ten"}, {"since": "yesterday"},
                   {"since": "2026-13-01T00:00:00Z"}, {"since": "0.5"}, {"since": "2026-01-01"},
                   {"since": "2026-01-01T00:00:00"}, {"learner": "x" * 256}, {"problem": "p" * 201},
                   {"cursor": "c" * 513}, {"learner": ""}):
        body = assert_error(alpha.get("/v1/submissions", params=params), 422, "invalid_request")
        assert next(iter(params)) in body["message"], body
    for cursor in ("not-a-cursor", "a.b", ".", "eyJ9.AAAA", "%00", "' OR 1=1 --"):
        assert_error(alpha.get("/v1/submissions", params={"cursor": cursor}), 400, "invalid_cursor")
    for params in ({"learner": "' OR '1'='1"}, {"problem": "x'; DROP TABLE judge_submissions; --"},
                   {"learner": "$.learner"}, {"since": "9999-12-31T23:59:59+23:59"}):
        page = alpha.get("/v1/submissions", params=params)
        assert page.status_code == 200 and page.json() == {"submissions": [], "next_cursor": None}, page.text
    oldest = alpha.get("/v1/submissions", params={"since": "0001-01-01T00:00:00-23:59", "limit": 1})
    assert oldest.status_code == 200 and len(oldest.json()["submissions"]) == 1, oldest.text


# -- errors ------------------------------------------------------------------------------------------
def test_invalid_requests(alpha):
    assert_error(alpha.post("/v1/submissions", json={"problem": "nope", "source": "x"}), 422, "unknown_problem")
    assert_error(alpha.post("/v1/submissions", json={"problem": "../problems/sinusoidal-pe", "source": "x"}),
                 422, "unknown_problem")
    assert_error(alpha.post("/v1/submissions", json={"source": "x"}), 422, "invalid_request")
    assert_error(alpha.post("/v1/submissions", json={"problem": "sinusoidal-pe", "source": "x", "extra": 1}),
                 422, "invalid_request")
    assert_error(alpha.post("/v1/submissions", content=b"{not json", headers={"Content-Type": "application/json"}),
                 422, "invalid_request")
    assert_error(post(alpha, "accepted", callback_url="ftp://127.0.0.1/x"), 422, "invalid_request")
    assert_error(post(alpha, "accepted", metadata={"blob": "x" * 20000}), 422, "invalid_request")


def test_callback_host_not_allowed(alpha):
    assert_error(post(alpha, "accepted", callback_url="http://10.1.2.3/hook"), 403, "callback_not_allowed")


def test_request_too_large(alpha):
    big = {"problem": "sinusoidal-pe", "source": "#" * 700_000}
    assert_error(alpha.post("/v1/submissions", json=big), 413, "request_too_large")

    def chunks():  # no Content-Length: the limit holds while the body streams in
        yield b'{"problem": "sinusoidal-pe", "source": "'
        for _ in range(80):
            yield b"#" * 10_000
        yield b'"}'
    assert_error(alpha.post("/v1/submissions", content=chunks(), headers={"Content-Type": "application/json"}),
                 413, "request_too_large")


def test_unknown_route_and_method(alpha):
    assert_error(alpha.get("/v1/nothing-here"), 404, "not_found")
    assert_error(alpha.delete("/v1/problems"), 405, "method_not_allowed")


def test_made_up_methods_are_one_405_and_one_metrics_series(api_server):
    """An anonymous client sending a new made-up method each time (and new paths) creates no series: every
    label of the request metrics comes from a closed set."""
    import re
    import secrets

    known = {"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"}

    def series() -> list[str]:
        return [line for line in httpx.get(api_server.url + "/metrics").text.splitlines()
                if line.startswith("judge_http_requests_total{")]

    with httpx.Client(base_url=api_server.url, timeout=30) as anonymous:
        for n in range(300):
            answer = anonymous.request("X" + secrets.token_hex(6).upper(), f"/v1/made-up-{n}")
            assert_error(answer, 405, "method_not_allowed")
        before = len(series())
        for n in range(50):
            anonymous.request("Y" + secrets.token_hex(6).upper(), f"/elsewhere/{n}")
            anonymous.get(f"/not-a-route/{n}")
    lines = series()
    assert len(lines) <= before + 1, lines  # at most the 404 of unmatched GETs is new
    methods = {re.search(r'method="([^"]*)"', line).group(1) for line in lines}
    routes = {re.search(r'route="([^"]*)"', line).group(1) for line in lines}
    assert methods <= known | {"OTHER"} and "OTHER" in methods, methods
    assert not any("made-up" in r or "not-a-route" in r for r in routes), routes
    other = [line for line in lines if 'method="OTHER"' in line]
    assert len(other) == 1 and float(other[0].split()[-1]) >= 350, other


def _stored_count(api_server) -> int:  # noqa: ANN001
    from judge.service.store import Store

    store = Store(api_server.db)
    try:
        return sum(store.stats()["states"].values())
    finally:
        store.close()


def test_every_item_of_a_batch_is_held_to_the_single_submissions_limit(api_server, alpha):
    """A batch of one was a way around the body limit (the batch limit is 16 MiB): each item is held to what
    one submission may be, and a refused batch stores nothing."""
    big = {"problem": "sinusoidal-pe", "source": "#" * 700_000}  # over JUDGE_MAX_BODY_BYTES (600000 here)
    small = {"problem": "sinusoidal-pe", "source": SOURCES["compile_error"]}
    before = _stored_count(api_server)
    body = assert_error(alpha.post("/v1/submissions/batch", json={"submissions": [big]}), 413, "request_too_large")
    assert "submissions[0]" in body["message"]
    body = assert_error(alpha.post("/v1/submissions/batch", json={"submissions": [small, big]}), 413,
                        "request_too_large")
    assert "submissions[1]" in body["message"]
    assert _stored_count(api_server) == before, "nothing of a refused batch is stored"


# -- idempotency -------------------------------------------------------------------------------------
def test_idempotency_key(alpha, beta):
    key = {"Idempotency-Key": "lms-attempt-42"}
    first = post(alpha, "accepted", headers=key)
    retry = post(alpha, "accepted", headers=key)
    assert first.status_code == 202 and retry.status_code in (200, 202)
    assert retry.json()["id"] == first.json()["id"] and retry.headers.get("Idempotent-Replayed") == "true"
    assert "Idempotent-Replayed" not in first.headers
    assert_error(post(alpha, "wrong_answer", headers=key), 422, "idempotency_conflict")
    other = post(beta, "accepted", headers=key)  # keys are per platform
    assert other.status_code == 202 and other.json()["id"] != first.json()["id"]
    waited = post(alpha, "accepted", headers=key, params={"wait": "true"})
    assert waited.status_code == 200 and waited.json()["id"] == first.json()["id"]


# -- batch ----------------------------------------------------------------------------------------------
def test_batch(alpha, beta):
    items = [{"problem": "sinusoidal-pe", "source": SOURCES[k]} for k in ("accepted", "wrong_answer", "compile_error")]
    r = alpha.post("/v1/submissions/batch", json={"submissions": items}, params={"wait": "true"})
    assert r.status_code == 200, r.text
    subs = r.json()["submissions"]
    assert [s["verdict"]["status"] for s in subs] == ["accepted", "wrong_answer", "compile_error"]
    assert_error(beta.get(f"/v1/submissions/{subs[0]['id']}"), 404)
    key = {"Idempotency-Key": "batch-7"}
    b1 = alpha.post("/v1/submissions/batch", json={"submissions": items[:2]}, headers=key).json()
    b2 = alpha.post("/v1/submissions/batch", json={"submissions": items[:2]}, headers=key).json()
    assert [s["id"] for s in b1["submissions"]] == [s["id"] for s in b2["submissions"]]
    assert_error(alpha.post("/v1/submissions/batch", json={"submissions": items * 2}), 422, "batch_too_large")
    assert_error(alpha.post("/v1/submissions/batch", json={"submissions": []}), 422, "invalid_request")
    bad = items[:1] + [{"problem": "nope", "source": "x"}]
    body = assert_error(alpha.post("/v1/submissions/batch", json={"submissions": bad}), 422, "unknown_problem")
    assert "submissions[1]" in body["message"]


# -- callbacks -------------------------------------------------------------------------------------------
def test_callbacks_signed_and_retried(alpha, beta):
    listener = CallbackListener(fail_first=1)  # every first delivery gets a 500: the judge must retry
    try:
        a = post(alpha, "accepted", callback_url=listener.url, metadata={"n": 1}).json()["id"]
        b = post(beta, "wrong_answer", callback_url=listener.url).json()["id"]
        got = wait_for(lambda: (lambda d: d if {a, b} <= set(d) else None)(listener.delivered()), 60,
                       what="two callbacks")
        for sub_id, platform_key in ((a, TOKENS["alpha"]), (b, BETA_SECRET)):
            [record] = got[sub_id]
            headers = record["headers"]
            assert headers["Content-Type"] == "application/json"
            assert headers["X-Judge-Signature"].startswith("sha256=")
            assert verify(platform_key.encode(), record["body"], headers["X-Judge-Signature"])
            assert not verify(b"some other key", record["body"], headers["X-Judge-Signature"])
            assert headers["X-Judge-Delivery-Attempt"] == "2"
            attempts = [r for r in listener.received if r["headers"].get("X-Judge-Submission") == sub_id]
            assert len(attempts) == 2 and attempts[1]["at"] - attempts[0]["at"] >= 0.15  # backoff
        assert body_json(got[a][0])["verdict"]["status"] == "accepted"
        assert body_json(got[a][0])["metadata"] == {"n": 1}
        assert body_json(got[b][0])["verdict"]["status"] == "wrong_answer"
        status = wait_for(lambda: (lambda s: s if s["callback_state"] == "delivered" else None)(
            alpha.get(f"/v1/submissions/{a}").json()), 10, what="callback_state delivered")
        assert body_json(got[a][0])["id"] == status["id"]
    finally:
        listener.stop()


def test_callback_gives_up_after_max_attempts(alpha):
    listener = CallbackListener(fail_first=100)
    try:
        sub = post(alpha, "compile_error", callback_url=listener.url).json()["id"]
        final = wait_for(lambda: (lambda s: s if s["callback_state"] == "failed" else None)(
            alpha.get(f"/v1/submissions/{sub}").json()), 120, 0.2, "callback_state failed")
        assert final["verdict"]["status"] == "compile_error"
        assert len([r for r in listener.received if r["headers"]["X-Judge-Submission"] == sub]) == 4
    finally:
        listener.stop()


# -- metrics -------------------------------------------------------------------------------------------------
def test_metrics(api_server, alpha):
    post(alpha, "accepted", params={"wait": "true"})
    text = httpx.get(api_server.url + "/metrics").text
    assert 'judge_queue_depth{state="queued"}' in text and 'judge_queue_depth{state="running"}' in text
    accepted = [line for line in text.splitlines() if line.startswith('judge_verdicts_total{status="accepted"}')]
    assert accepted and float(accepted[0].split()[-1]) >= 1
    assert "judge_submission_latency_seconds_bucket" in text and "judge_submission_latency_seconds_count" in text
    assert 'judge_http_requests_total{code="202",method="POST",route="/v1/submissions"}' in text
