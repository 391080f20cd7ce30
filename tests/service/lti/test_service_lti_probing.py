"""The probing limit and a teacher's per-activity feedback policy, over real HTTP against `judge serve` and the real
sandbox: an LTI activity's custom parameters (``feedback_hidden``, ``feedback_probes``), a ``/learn`` course's
``JUDGE_LEARN_FEEDBACK``, the platform API's learner view; what a learner who submits fast sees, what a reload or
another tab shows, who in the class hit the limit, and who may read it."""

from __future__ import annotations

import base64
import csv
import io
import json
import re
from datetime import datetime, timedelta

import httpx
import pytest

from tests.support.lti_client import INSTRUCTOR, _member, _source, _teacher, launch, start_launch
from tests.support.lti_platform import LoopbackPlatform
from tests.support.service import Server, wait_for

MEMBERS = {"course-1": [_member("t-1", "Grace Teacher", INSTRUCTOR), _member("s-ada", "Ada"), _member("s-bob", "Bob")],
           "course-2": [_member("t-2", "Other Teacher", INSTRUCTOR), _member("s-eve", "Eve")]}
#: the activity's override: each hidden case's status, at most two submissions with hidden feedback an hour
ACTIVITY = {"feedback_hidden": "status", "feedback_probes": "2/1h"}
TOKENS = {"lms": "probing-token-lms-0123456789", "other": "probing-token-other-0123456789"}
TOOL_ENV = {"JUDGE_API_TOKENS": ",".join(f"{k}:{v}" for k, v in TOKENS.items()),
            "JUDGE_LEARN_CODES": "ml1:ml1-access", "JUDGE_LEARN_FEEDBACK": "ml1:hidden=status;probes=1/1h"}
WRONG = "wrong_answer/sin_cos_swapped.py"


def _submit_fast(browser: httpx.Client, csrf: str, n: int) -> list[str]:
    """``n`` submissions sent back to back (the rate limit's burst allows them), not waited for."""
    ids = []
    for _ in range(n):
        created = browser.post("/lti/api/submissions", json={"source": _source(WRONG)}, headers={"X-CSRF-Token": csrf})
        assert created.status_code == 202, created.text
        ids.append(created.json()["id"])
    return ids


def _views(browser: httpx.Client, csrf: str, ids: list[str]) -> list[dict]:
    """Each submission as the page shows it, once all are judged."""
    def done() -> list[dict] | None:
        views = [browser.get(f"/lti/api/submissions/{i}", headers={"X-CSRF-Token": csrf}).json() for i in ids]
        return views if all(v["state"] == "done" for v in views) else None
    return wait_for(done, 180, interval=0.3, what="the verdicts")


def _hidden_rows(verdict: dict) -> list[dict]:
    return [c for c in verdict["cases"] if c["visibility"] != "public"]


def _limited(view: dict) -> bool:
    """The probing limit cut this view: the score and public cases only, and it says when more comes back."""
    verdict = view["verdict"]
    shown = verdict["shown"]
    if not shown["probes_exceeded"]:
        return False
    assert shown["level"] == "score" and not _hidden_rows(verdict) and shown["withheld_cases"] > 0
    assert "withheld until" in verdict["message"] and shown["probes_back_at"] in verdict["message"]
    return True


@pytest.fixture(scope="module")
def probed(platform: LoopbackPlatform, server: Server):
    """Ada submits three wrong answers back to back under the activity's limit of two; Bob submits one."""
    ada, csrf = launch(platform, server, "s-ada", custom=ACTIVITY)
    ids = _submit_fast(ada, csrf, 3)
    bob, bob_csrf = launch(platform, server, "s-bob", custom=ACTIVITY)
    _views(bob, bob_csrf, _submit_fast(bob, bob_csrf, 1))
    return ada, csrf, ids, _views(ada, csrf, ids)


def test_fast_submissions_past_the_limit_see_no_hidden_status(probed):
    _, _, _, views = probed
    first, second, third = views
    for view in (first, second):  # within the limit: each hidden case's status (the activity's level)
        assert not _limited(view) and view["verdict"]["shown"]["level"] == "status"
        assert _hidden_rows(view["verdict"]) and all(re.fullmatch(r"hidden case \d+ of \d+", c["id"])
                                                     for c in _hidden_rows(view["verdict"]))
    assert _limited(third), third["verdict"]
    # more comes back when the oldest counted submission leaves the hour
    back = datetime.fromisoformat(third["verdict"]["shown"]["probes_back_at"])
    created = datetime.fromisoformat(first["created_at"].replace("Z", "+00:00"))
    assert abs(back - (created + timedelta(hours=1))) < timedelta(seconds=1)
    assert any(c["visibility"] == "public" for c in third["verdict"]["cases"]), "public cases stay"


def test_a_reload_or_another_tab_shows_exactly_what_was_shown(platform, server, probed):
    ada, csrf, ids, views = probed
    again = [ada.get(f"/lti/api/submissions/{i}", headers={"X-CSRF-Token": csrf}).json() for i in ids]
    history = {s["id"]: s for s in
               ada.get("/lti/api/submissions", headers={"X-CSRF-Token": csrf}).json()["submissions"]}
    tab, tab_csrf = launch(platform, server, "s-ada", custom=ACTIVITY)  # a new launch: another tab
    elsewhere = {s["id"]: s for s in tab.get("/lti/api/submissions",
                                             headers={"X-CSRF-Token": tab_csrf}).json()["submissions"]}
    for view, reloaded in zip(views, again):
        for other in (reloaded, history[view["id"]], elsewhere[view["id"]]):
            assert {k: v for k, v in other["verdict"].items() if k != "pictures"} == \
                   {k: v for k, v in view["verdict"].items() if k != "pictures"}


def test_the_teacher_keeps_the_full_verdict_and_sees_who_hit_the_limit(platform, server, probed):
    _, _, ids, _ = probed
    teacher, csrf = _teacher(platform, server, custom=ACTIVITY)  # the teacher's launch of the same activity
    body = teacher.get("/lti/api/class", headers={"X-CSRF-Token": csrf}).json()
    rows = {r["user_id"]: r for r in body["learners"]}
    assert rows["s-ada"]["probe_limited"] == 1 and rows["s-bob"]["probe_limited"] == 0
    table = list(csv.DictReader(io.StringIO(teacher.get("/lti/api/class.csv", headers={"X-CSRF-Token": csrf}).text)))
    assert {r["user_id"]: r["probe_limited"] for r in table} == {"s-ada": "1", "s-bob": "0"}
    subs = teacher.get("/lti/api/class/learners/s-ada", headers={"X-CSRF-Token": csrf}).json()["submissions"]
    limited = next(s for s in subs if s["id"] == ids[2])
    assert _hidden_rows(limited["verdict"]) and not limited["verdict"].get("shown"), "the teacher's verdict is whole"


def test_another_courses_teacher_cannot_read_who_hit_the_limit(platform, server, probed):
    other, csrf = _teacher(platform, server, user="t-2", course="course-2", custom=ACTIVITY)
    body = other.get("/lti/api/class", headers={"X-CSRF-Token": csrf}).json()
    assert [r["user_id"] for r in body["learners"]] == ["s-eve"] and body["learners"][0]["probe_limited"] == 0
    assert other.get("/lti/api/class/learners/s-ada", headers={"X-CSRF-Token": csrf}).status_code == 404
    assert "s-ada" not in other.get("/lti/api/class.csv", headers={"X-CSRF-Token": csrf}).text


@pytest.mark.parametrize(("custom", "named"), [
    ({"feedback_probes": "5/1x"}, "feedback_probes"),
    ({"feedback_probes": "0/1h"}, "feedback_probes"),
    ({"feedback_hidden": "everything"}, "feedback_hidden"),
    ({"feedback_due": "next friday", "feedback_after_due": "full"}, "feedback_due"),
    ({"feedback_hiden": "score"}, "feedback_hiden"),
])
def test_invalid_feedback_parameters_refuse_the_launch(platform, server, custom, named):
    browser, action, fields = start_launch(platform, server, "s-bob", custom=custom)
    answer = browser.post(action, data=fields)
    assert answer.status_code == 400 and named in answer.text, answer.text


def test_a_learner_who_changes_the_signed_parameters_is_refused(platform, server):
    """Custom parameters are in the id_token the platform signs: lifting the limit breaks the signature."""
    browser, action, fields = start_launch(platform, server, "s-bob", custom=ACTIVITY)
    head, payload, signature = fields["id_token"].split(".")
    claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    claims["https://purl.imsglobal.org/spec/lti/claim/custom"].update(feedback_hidden="full", feedback_probes="off")
    forged = base64.urlsafe_b64encode(json.dumps(claims).encode()).decode().rstrip("=")
    answer = browser.post(action, data={**fields, "id_token": f"{head}.{forged}.{signature}"})
    assert answer.status_code in (400, 403) and not answer.headers.get("location"), answer.text


def test_a_learn_course_applies_its_setting(server):
    """``JUDGE_LEARN_FEEDBACK``: ml1 shows hidden statuses, one submission with hidden feedback an hour; its
    learners have no custom parameters to send."""
    browser = httpx.Client(base_url=server.url, timeout=60)
    joined = browser.post("/learn/sinusoidal-pe", data={"action": "join", "course": "ml1", "code": "ml1-access",
                                                         "name": "Lin"})
    assert joined.status_code == 200, joined.text
    page = browser.get(re.search(r'href="(/lti/page/[^"]+)"', joined.text).group(1))
    csrf = re.search(r'<meta name="csrf-token" content="([^"]+)">', page.text).group(1)
    first, second = _views(browser, csrf, _submit_fast(browser, csrf, 2))
    assert not _limited(first) and first["verdict"]["shown"]["level"] == "status" and _hidden_rows(first["verdict"])
    assert _limited(second)


def test_the_platform_api_learner_view(server):
    lms, other = server.client(TOKENS["lms"]), server.client(TOKENS["other"])
    ids = []
    for learner in ("u1", "u1", "u1", "u2"):
        created = lms.post("/v1/submissions", json={"problem": "sinusoidal-pe", "source": _source(WRONG),
                                                    "metadata": {"learner": learner}})
        assert created.status_code == 202, created.text
        ids.append(created.json()["id"])
    query = {"hidden": "status", "probes": "2/1h"}

    def views() -> list[dict] | None:
        got = [lms.get(f"/v1/submissions/{i}/learner-view", params=query) for i in ids]
        assert all(g.status_code == 200 for g in got), [g.text for g in got]
        return [g.json() for g in got] if all(g.json()["state"] == "done" for g in got) else None
    u1_a, u1_b, u1_c, u2 = wait_for(views, 180, interval=0.3, what="the verdicts")
    assert [_limited(v) for v in (u1_a, u1_b, u1_c, u2)] == [False, False, True, False]
    assert u2["learner"] == "u2" and _hidden_rows(u2["verdict"]) and u2["verdict"]["shown"]["level"] == "status"
    whole = lms.get(f"/v1/submissions/{ids[2]}").json()["verdict"]
    assert _hidden_rows(whole) and not whole.get("shown"), "the platform keeps the full verdict"
    assert other.get(f"/v1/submissions/{ids[0]}/learner-view").status_code == 404, "another token's submission"
    assert server.client(None).get(f"/v1/submissions/{ids[0]}/learner-view").status_code == 401
    bad = lms.get(f"/v1/submissions/{ids[0]}/learner-view", params={"probes": "2/1x"})
    assert bad.status_code == 422 and "probes" in bad.json()["message"], bad.text
    assert "/v1/submissions/{submission_id}/learner-view" in httpx.get(server.url + "/openapi.json").json()["paths"]
