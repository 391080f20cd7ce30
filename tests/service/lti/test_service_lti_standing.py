"""A learner's gradebook score is their standing in the activity, never one old submission's score posted as
the newest: against the test LMS (which, like Canvas and Moodle, keeps the Score with the latest timestamp),
over real HTTP with a real `judge serve` and the real sandbox.  Live, a worse try after a better one keeps the
best score (the default rule) or shows the newest (an activity's ``score_rule=latest``); after a case is added
and the teacher's rejudge is applied, each learner gets one new score, their standing under the new bundle."""

from __future__ import annotations

import subprocess
import sys
import time
from datetime import datetime

import pytest

from tests.support.common import REPO
from tests.support.lti_client import INSTRUCTOR, _member, _source, _teacher, launch, start_launch, submit_and_wait
from tests.support.lti_platform import LoopbackPlatform
from tests.support.service import wait_for

WRONG, RIGHT = "wrong_answer/sin_cos_swapped.py", "accepted/vectorised.py"


MEMBERS = {"course-1": [_member("t-1", "Grace Teacher", INSTRUCTOR), _member("s-ada", "Ada"), _member("s-bob", "Bob")]}
TOOL_ON_A_COPY = True  # a case is added to it
TOOL_ENV = {"JUDGE_LEARNER_RATE_LIMIT": "1000:10000"}


def _posts(platform: LoopbackPlatform, user: str) -> list[dict]:
    return sorted((s["score"] for s in platform.scores if s["score"]["userId"] == user),
                  key=lambda s: datetime.fromisoformat(s["timestamp"]))


def gradebook(platform: LoopbackPlatform, user: str) -> dict:
    """What the LMS shows: the Score with the latest timestamp."""
    return _posts(platform, user)[-1]


def _graded(platform: LoopbackPlatform, user: str, n: int) -> list[dict]:
    return wait_for(lambda: (lambda g: g if len(g) >= n else None)(
        [s for s in _posts(platform, user) if s["gradingProgress"] == "FullyGraded"]), 30,
        what=f"{n} grades of {user}")


def test_an_unknown_score_rule_is_named_at_launch(platform, server):
    browser, action, fields = start_launch(platform, server, "s-ada", custom={"score_rule": "average"})
    refused = browser.post(action, data=fields)
    assert refused.status_code == 400 and "score_rule" in refused.text and "Traceback" not in refused.text


def test_a_rejudge_never_lowers_a_standing_by_replaying_an_old_submission(platform, server):
    ada, ada_csrf = launch(platform, server, "s-ada")  # the default rule: best
    scores = [submit_and_wait(ada, ada_csrf, _source(f))["verdict"]["score"] for f in (WRONG, RIGHT, WRONG)]
    assert scores[0] < 1.0 == scores[1] and scores[2] == scores[0]
    _graded(platform, "s-ada", 3)
    assert gradebook(platform, "s-ada")["scoreGiven"] == 1.0, "a worse try after full marks keeps full marks"
    assert gradebook(platform, "s-ada")["comment"] == "accepted (the best of 3 submissions)"

    bob, bob_csrf = launch(platform, server, "s-bob", custom={"score_rule": "latest"})
    last = [submit_and_wait(bob, bob_csrf, _source(f)) for f in (RIGHT, WRONG)][-1]
    _graded(platform, "s-bob", 2)
    assert gradebook(platform, "s-bob")["scoreGiven"] == pytest.approx(last["verdict"]["score"]), \
        "score_rule=latest: the newest submission's score"

    # a case added: every score changes, so every submission's verdict is replaced on apply
    added = subprocess.run([sys.executable, "-m", "judge", "case", "add", str(server.problems / "sinusoidal-pe"),
                            "-f", "sinusoidal_pe", "--args", '{"max_len": 3, "d_model": 6}', "--public",
                            "--id", "added-3x6"], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert added.returncode == 0, added.stderr
    teacher, csrf = _teacher(platform, server)
    rid = teacher.post("/lti/api/class/rejudges", headers={"X-CSRF-Token": csrf}).json()["id"]
    view = wait_for(lambda: (lambda v: v if v["state"] == "done" else None)(
        teacher.get(f"/lti/api/class/rejudges/{rid}", headers={"X-CSRF-Token": csrf}).json()), 300, 0.3,
        "the course's rejudge")
    assert view["total"] == 5 and len(view["changed"]) == 3, view  # the three wrong ones' scores change
    posted = {user: len(_posts(platform, user)) for user in ("s-ada", "s-bob")}
    applied = teacher.post(f"/lti/api/class/rejudges/{rid}/apply", headers={"X-CSRF-Token": csrf})
    assert applied.status_code == 200, applied.text

    new_wrong = next(c for c in view["changed"] if c["submission"] == last["id"])["new_score"]
    assert 0 < new_wrong < last["verdict"]["score"]
    for user, expected in (("s-ada", 1.0), ("s-bob", new_wrong)):
        wait_for(lambda: len(_posts(platform, user)) > posted[user], 30, what=f"{user}'s new standing")  # noqa: B023
        after = _posts(platform, user)[posted[user]:]
        shown = gradebook(platform, user)
        assert shown["gradingProgress"] == "FullyGraded" and shown["scoreGiven"] == pytest.approx(expected), \
            (user, after)
    time.sleep(2)  # any further post would be due by now (the dispatcher polls every 0.1 s)
    for user in ("s-ada", "s-bob"):
        assert len(_posts(platform, user)) == posted[user] + 1, "one score per learner, not one per submission"
