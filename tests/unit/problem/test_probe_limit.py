"""The probing limit and a teacher's override of the feedback policy, as text: how submissions are counted, when
more comes back, and errors that name the key (problem.yaml's ``feedback.probes``, an activity's ``feedback_*``
custom parameters, a ``/learn`` course's setting)."""

from __future__ import annotations

import shutil

import pytest

from judge.errors import BundleError
from judge.problem.feedback_override import OverrideError, apply_override, parse_override, parse_setting
from judge.problem.feedback_policy import FeedbackLevel, FeedbackPolicy, ProbeLimit
from judge.problem.loader import load_problem
from judge.service.settings import Settings, SettingsError
from tests.support.common import REPO

HOUR = 3600.0


def test_every_submission_in_the_window_counts_and_more_comes_back_when_the_oldest_leaves():
    limit = ProbeLimit.parse("2/1h")
    assert limit == ProbeLimit(hidden_feedback=2, window=HOUR)
    assert limit.back_at([], 0) is None and limit.back_at([0.0], 10) is None
    assert limit.back_at([0.0, 10.0], 20) == HOUR + 10, "the 2 most recent, this one included: the older leaves"
    assert limit.back_at([0.0, 10.0, 20.0], 30) == HOUR + 20, "a withheld submission counts too"
    assert limit.back_at([0.0, 10.0], HOUR) is None, "exactly a window old: out of it"
    assert limit.back_at([0.0, 10.0, 5 * HOUR], 20) == HOUR + 10, "later submissions change nothing shown before"


@pytest.mark.parametrize(("text", "named"), [("5", "N/WINDOW"), ("x/1h", "N/WINDOW"), ("5/1x", "time span"),
                                             ("0/1h", "greater than or equal to 1"), ("5/0s", "more than 0")])
def test_a_bad_limit_says_what_it_expects(text, named):
    with pytest.raises(OverrideError, match="feedback_probes") as caught:
        parse_override({"feedback_probes": text}, "feedback_")
    assert named in str(caught.value)


def test_an_override_replaces_the_fields_it_names_stricter_or_more_generous():
    bundle = FeedbackPolicy(hidden=FeedbackLevel.DIAGNOSIS, probes=ProbeLimit.parse("3/1h"))
    stricter = apply_override(bundle, parse_override({"feedback_hidden": "score", "feedback_probes": "1/1d"},
                                                     "feedback_"))
    assert stricter.hidden is FeedbackLevel.SCORE and stricter.probes == ProbeLimit(hidden_feedback=1, window=86400)
    generous = apply_override(bundle, parse_override({"feedback_hidden": "full", "feedback_probes": "off"},
                                                     "feedback_"))
    assert generous.hidden is FeedbackLevel.FULL and generous.probes is None
    due = apply_override(FeedbackPolicy(), parse_override(
        {"feedback_due": "2026-12-20T23:59Z", "feedback_after_due": "full", "problem": "ignored"}, "feedback_"))
    assert due.due is not None and due.due.isoformat() == "2026-12-20T23:59:00+00:00"
    # a bundle's after-due level below the teacher's level is raised to it: a due date only reveals more
    dated = FeedbackPolicy(hidden=FeedbackLevel.SCORE, due=due.due, after_due=FeedbackLevel.STATUS)
    assert apply_override(dated, {"hidden": "diagnosis"}).after_due is FeedbackLevel.DIAGNOSIS


@pytest.mark.parametrize(("pairs", "named"), [
    ({"feedback_hidden": "everything"}, "feedback_hidden: 'everything' is not a level"),
    ({"feedback_hidden_ids": "maybe"}, "feedback_hidden_ids"),
    ({"feedback_due": "friday"}, "feedback_due"),
    ({"feedback_due": "2026-12-20"}, "due and after_due go together"),
])
def test_an_override_that_cannot_apply_names_its_key(pairs, named):
    with pytest.raises(OverrideError) as caught:
        apply_override(FeedbackPolicy(), parse_override(pairs, "feedback_"))
    assert named in str(caught.value)


def test_a_learn_courses_setting_is_checked_when_the_server_starts():
    settings = Settings.from_env({"JUDGE_LEARN_FEEDBACK": "ml1:hidden=status;probes=5/1h,ml2:probes=off"})
    assert settings.learn_feedback == {"ml1": {"hidden": "status", "probes": {"hidden_feedback": 5, "window": HOUR}},
                                       "ml2": {"probes": None}}
    for text, named in (("ml1:hiden=status", "'hiden=status' is not KEY=VALUE"), ("ml1:probes=5/1x", "probes"),
                        ("ml1:hidden=lots", "ml1")):
        with pytest.raises(SettingsError, match="JUDGE_LEARN_FEEDBACK") as caught:
            Settings.from_env({"JUDGE_LEARN_FEEDBACK": text})
        assert named in str(caught.value)
    assert parse_setting("", "x") == {}


def test_a_bundles_limit_is_read_from_problem_yaml_and_a_typo_is_named(tmp_path):
    root = tmp_path / "sinusoidal-pe"
    shutil.copytree(REPO / "problems" / "sinusoidal-pe", root, ignore=shutil.ignore_patterns("__pycache__"))
    spec = root / "problem.yaml"
    original = spec.read_text()
    spec.write_text(original + "\nfeedback:\n  hidden: status\n  probes: {hidden_feedback: 4, window: 30m}\n")
    assert load_problem(root).spec.feedback.probes == ProbeLimit(hidden_feedback=4, window=1800)
    spec.write_text(original + "\nfeedback:\n  probes: {hidden_feedback: 4, window: soon}\n")
    with pytest.raises(BundleError, match="probes") as caught:
        load_problem(root)
    assert "soon" in str(caught.value) and "time span" in str(caught.value)
