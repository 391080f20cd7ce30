"""Gradescope autograder results.json.

Fields (Gradescope's autograder specification): top level ``score``,
``execution_time`` (seconds), ``output``, ``output_format``, ``visibility``,
``stdout_visibility``, ``extra_data``, ``tests``; each test ``name``, ``number``,
``score``, ``max_score``, ``status`` ("passed" | "failed"), ``output``,
``output_format``, ``tags``, ``visibility``.  Visibility values: "hidden",
"after_due_date", "after_published", "visible".  Tests are listed in case order.
Hidden cases get ``hidden_visibility`` (default "after_due_date") and their
output never holds values or locations.
"""

from __future__ import annotations

import json
from typing import Any

from judge.formats.common import case_label, case_message, cut, diagnoses_for, summary
from judge.problem.loader import Bundle
from judge.verdict import Status, Verdict

VISIBILITIES = ("hidden", "after_due_date", "after_published", "visible")
TEST_OUTPUT_CAP = 8 << 10       # our cap per test output (Gradescope documents none; keep pages light)
OUTPUT_CAP = 64 << 10           # and for the top-level output


def results(verdict: Verdict, bundle: Bundle | None = None, hidden_visibility: str = "after_due_date") -> dict:
    if hidden_visibility not in VISIBILITIES:
        raise ValueError(f"visibility must be one of {VISIBILITIES}")
    tests: list[dict[str, Any]] = []
    for n, case in enumerate(verdict.cases, start=1):
        passed = case.status is Status.ACCEPTED
        status_line = case.status.value.replace("_", " ")
        output = status_line if passed else f"{status_line}: {case_message(verdict, case)}"
        tests.append({
            "name": f"{case_label(case)}: {case.function}",
            "number": str(n),
            "score": round(case.weight if passed else 0.0, 6),
            "max_score": round(case.weight, 6),
            "status": "passed" if passed else "failed",
            "output": cut(output, TEST_OUTPUT_CAP),
            "output_format": "text",
            "tags": [case.function, *diagnoses_for(verdict, case)],
            "visibility": "visible" if case.visibility == "public" else hidden_visibility,
        })
    score = round(sum(t["score"] for t in tests), 6)
    return {
        "score": score,
        "execution_time": round((verdict.judged_in_ms or 0.0) / 1e3, 3),
        "output": cut(summary(verdict), OUTPUT_CAP),
        "output_format": "text",
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "extra_data": {"status": verdict.status.value, "problem": verdict.problem,
                       "diagnoses": [d.id for d in verdict.diagnoses],
                       "patterns": [p.model_dump() for p in verdict.patterns],
                       "isolation": verdict.isolation.mode if verdict.isolation is not None else None},
        "tests": tests,
    }


def export(verdict: Verdict, bundle: Bundle | None = None) -> str:
    return json.dumps(results(verdict, bundle), indent=2)
