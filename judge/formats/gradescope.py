"""Gradescope autograder results.json.

Fields (Gradescope's autograder specification): top level ``score``,
``execution_time`` (seconds), ``output``, ``output_format``, ``visibility``,
``stdout_visibility``, ``extra_data``, ``tests``; each test ``name``, ``number``,
``score``, ``max_score``, ``status`` ("passed" | "failed"), ``output``,
``output_format``, ``tags``, ``visibility``.  Visibility values: "hidden",
"after_due_date", "after_published", "visible".  Tests are listed in case order.
Hidden cases get ``hidden_visibility`` (default "after_due_date") and their
output never holds values or locations.

:func:`for_learners` maps a feedback policy onto those visibilities, so Gradescope's own release after the
assignment's due date does what the policy's due date would: with an ``after_due`` level, hidden tests carry
that level's text and ``after_due_date`` (until then a learner sees none of them, only the total, never more
than the policy allows); without one, they carry the policy's level and are ``visible`` (``after_due_date``
when problem.yaml has no ``feedback:`` section, as Gradescope packages always did).  At level ``score``
the hidden cases are one row, their total.  The top-level output always follows the level before the due date.
"""

from __future__ import annotations

import json
from typing import Any

from judge.formats.common import case_label, case_message, cut, diagnoses_for, summary
from judge.formats.learner import learner_view
from judge.i18n import messages as m
from judge.i18n.catalog import say
from judge.problem.feedback_policy import FeedbackPolicy
from judge.problem.loader import Bundle
from judge.verdict import Status, Verdict

VISIBILITIES = ("hidden", "after_due_date", "after_published", "visible")
TEST_OUTPUT_CAP = 8 << 10       # our cap per test output (Gradescope documents none; keep pages light)
OUTPUT_CAP = 64 << 10           # and for the top-level output


def results(verdict: Verdict, bundle: Bundle | None = None, hidden_visibility: str = "after_due_date",
            overview: Verdict | None = None, lang: str = "en") -> dict:
    """``overview``: the verdict the always-visible parts (output, extra_data) are written from (default
    ``verdict``, whose hidden rows get ``hidden_visibility``); ``lang``: the language of the judge's own words."""
    overview = overview or verdict
    if hidden_visibility not in VISIBILITIES:
        raise ValueError(f"visibility must be one of {VISIBILITIES}")
    tests: list[dict[str, Any]] = []
    for n, case in enumerate(verdict.cases, start=1):
        passed = case.status is Status.ACCEPTED
        status_line = say(m.STATUS_WORDS[case.status.value], lang)
        output = status_line if passed else say(m.LABELLED, lang, label=status_line,
                                                text=case_message(verdict, case, lang))
        tests.append({
            "name": say(m.LABELLED, lang, label=case_label(case, lang), text=case.function),
            "number": str(n),
            "score": round(case.weight if passed else 0.0, 6),
            "max_score": round(case.weight, 6),
            "status": "passed" if passed else "failed",
            "output": cut(output, TEST_OUTPUT_CAP, lang=lang),
            "output_format": "text",
            "tags": [case.function, *diagnoses_for(verdict, case)],
            "visibility": "visible" if case.visibility == "public" else hidden_visibility,
        })
    shown = verdict.shown
    if shown is not None and shown.withheld_cases:   # level score: the hidden cases count as one row
        passed = shown.withheld_passed == shown.withheld_cases
        tests.append({"name": say(m.X_HIDDEN_CASES, lang, count=shown.withheld_cases), "number": str(len(tests) + 1),
                      "score": round(shown.withheld_passed_weight, 6), "max_score": round(shown.withheld_weight, 6),
                      "status": "passed" if passed else "failed", "output_format": "text", "tags": [],
                      "output": say(m.X_ONLY_SCORE, lang, passed=shown.withheld_passed,
                                    total=shown.withheld_cases), "visibility": hidden_visibility})
    score = round(sum(t["score"] for t in tests), 6)
    return {
        "score": score,
        "execution_time": round((verdict.judged_in_ms or 0.0) / 1e3, 3),
        "output": cut(summary(overview, lang), OUTPUT_CAP, lang=lang),
        "output_format": "text",
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "extra_data": {"status": verdict.status.value, "problem": verdict.problem,
                       "diagnoses": [d.id for d in overview.diagnoses],
                       "patterns": [p.model_dump() for p in overview.patterns],
                       "isolation": verdict.isolation.mode if verdict.isolation is not None else None},
        "tests": tests,
    }


def for_learners(verdict: Verdict, bundle: Bundle | None, policy: FeedbackPolicy | None = None,
                 hidden_visibility: str | None = None, lang: str = "en") -> dict:
    """results.json for learners: the full ``verdict`` cut by ``policy`` (default: the bundle's), hidden tests'
    visibility mapped from it unless ``hidden_visibility`` insists on one; its texts in ``lang``."""
    from judge.i18n.localize import localize

    stated = policy is not None or (bundle is not None and "feedback" in bundle.spec.model_fields_set)
    policy = policy or (bundle.spec.feedback if bundle is not None else FeedbackPolicy())
    before = localize(learner_view(verdict, FeedbackPolicy(hidden=policy.hidden, hidden_ids=policy.hidden_ids)),
                      lang, bundle)
    if policy.after_due is not None:
        rows = localize(learner_view(verdict, FeedbackPolicy(hidden=policy.after_due, hidden_ids=policy.hidden_ids)),
                        lang, bundle)
        return results(rows, bundle, hidden_visibility or "after_due_date", overview=before, lang=lang)
    # no feedback: section: Gradescope's packages always released hidden tests after the due date; keep that
    return results(before, bundle, hidden_visibility or ("visible" if stated else "after_due_date"), lang=lang)


def export(verdict: Verdict, bundle: Bundle | None = None, lang: str = "en") -> str:
    return json.dumps(results(verdict, bundle, lang=lang), indent=2)


def export_for_learners(verdict: Verdict, bundle: Bundle | None = None, lang: str = "en") -> str:
    """What ``judge grade --format gradescope`` writes: :func:`for_learners` with the bundle's policy."""
    return json.dumps(for_learners(verdict, bundle, lang=lang), indent=2)
