"""Feedback beyond names: failure patterns, time feedback, the structure of the diagnosis package.

Real sandbox, real example files (translated from real-world formulations: submissions/.../rw_*.py)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.support.common import REPO, SUBMISSIONS

_verdicts: dict = {}


def verdict_of(judge, folder: str, name: str):
    key = (folder, name)
    if key not in _verdicts:
        _verdicts[key] = judge.grade((SUBMISSIONS / folder / name).read_bytes())
    return _verdicts[key]


def _odd_cases(judge) -> set[str]:
    prepared = judge.problem("sinusoidal-pe")
    return {c.spec.id for c in prepared.cases if c.expected.shape[-1] % 2}


@pytest.mark.parametrize("folder,name,words,exact", [
    ("runtime_error", "rw_pytorch_tutorial_odd.py", "d_model is odd", True),
    ("wrong_answer", "rw_tf_tutorial_get_angles.py", "d_model is odd", True),
    ("wrong_answer", "wrong_sequence_axis.py", "at least one batch axis", True),
    ("runtime_error", "rw_unpack_three_axes.py", "no or more than one batch axis", True),
    ("wrong_answer", "rw_input_dtype.py", "x is float32", True),
])
def test_failure_patterns_name_what_failing_cases_share(judge, folder, name, words, exact):
    verdict = verdict_of(judge, folder, name)
    failing = {c.id for c in verdict.cases if c.status.value not in ("accepted", "skipped")}
    matching = [p for p in verdict.patterns if words in p.description and p.exact == exact]
    assert matching, [p.description for p in verdict.patterns]
    pattern = matching[0]
    assert set(pattern.cases) <= failing and pattern.cases
    if "odd" in words:
        assert set(pattern.cases) <= _odd_cases(judge)
    if "float32" in words:
        assert pattern.cases == ["add-float32"] and "only" in pattern.description


def test_patterns_show_first_in_text_json_and_exports(judge):
    from judge.formats import export
    from judge.formats.text import render_text

    verdict = verdict_of(judge, "wrong_answer", "rw_input_dtype.py")
    bundle = judge.problem("sinusoidal-pe").bundle
    description = verdict.patterns[0].description
    text = render_text(verdict)
    assert description[1:] in text and text.index(description[1:]) < text.index("What went wrong")
    pattern = json.loads(verdict.model_dump_json())["patterns"][0]
    assert pattern.pop("said")[0]["id"] == "pattern.only_on"  # the description as a message id (judge.i18n)
    assert pattern == {"description": description, "cases": ["add-float32"], "exact": True}
    grades = json.loads(export(verdict, "gradescope", bundle))
    assert grades["extra_data"]["patterns"][0]["cases"] == ["add-float32"]
    assert description[1:] in grades["output"]
    exercism = json.loads(export(verdict, "exercism", bundle))
    failing = [t for t in exercism["tests"] if t["status"] != "pass"]
    assert description[1:] in failing[0]["message"]
    assert description in export(verdict, "junit", bundle)


def test_hidden_cases_are_listed_by_id_in_patterns_never_described_by_value(judge):
    verdict = verdict_of(judge, "wrong_answer", "rw_tf_tutorial_get_angles.py")
    pattern = verdict.patterns[0]
    hidden = {c.id for c in verdict.cases if c.visibility == "hidden"}
    assert hidden & set(pattern.cases), "hidden failing cases are counted by id"
    assert not any(h in pattern.description for h in hidden)


def test_no_misleading_name_when_float32_is_the_least_of_three_mistakes(judge):
    """The issue's case: float32 arithmetic + column-index exponent + row 0 at zero.  float32 may partly explain;
    it must never be the explanation, and the recovered formula says what was computed."""
    from judge.formats.text import render_text

    verdict = verdict_of(judge, "wrong_answer", "rw_float32_column_row0.py")
    assert not any(d.explains for d in verdict.diagnoses)
    assert verdict.recovered is not None and verdict.recovered.explains
    wrong = {c.id: c.option for c in verdict.recovered.components if not c.right}
    assert wrong == {"dtype": "float32", "exponent": "column", "row0": "zeroed"}
    text = render_text(verdict)
    assert "No known mistake explains every failing case" in text and "What your code computes" in text
    assert "float32" in verdict.recovered.summary and "row 0" in verdict.recovered.summary


def test_combined_mistakes_are_named_together(judge):
    verdict = verdict_of(judge, "wrong_answer", "rw_tf_concat_float32.py")
    first = verdict.diagnoses[0]
    assert first.id == "halves_not_interleaved+float32_precision" and first.explains
    assert "interleaved" in first.message and "float32" in first.message


def test_time_feedback_says_which_call_ran_out_and_that_the_rest_was_right(judge):
    from judge.formats.text import render_text

    verdict = verdict_of(judge, "time_limit_exceeded", "rw_correct_slow_loop.py")
    assert verdict.status.value == "time_limit_exceeded"
    t = verdict.time_feedback
    sizes = {"table-medium": "2048 positions x 512 columns", "table-largest": "8192 positions x 1024 columns"}
    assert t is not None and t.case in sizes and t.size == sizes[t.case]  # which one depends on the machine
    assert t.all_finished_correct and t.finished and all(f.correct for f in t.finished)
    assert "correct so far" in t.message and "vectorise" in t.message
    assert "correct so far" in render_text(verdict)


def test_accepted_verdict_has_no_explanations(judge):
    verdict = judge.grade((SUBMISSIONS / "accepted" / "vectorised.py").read_bytes())
    assert verdict.accepted and not verdict.patterns and verdict.recovered is None and verdict.time_feedback is None


def test_generic_recognisers_are_registered_units_and_the_bank_can_reword_each():
    from judge.diagnosis import REGISTRY
    from judge.problem.mistakes import GENERIC_IDS

    assert set(REGISTRY) == set(GENERIC_IDS)
    for rec in REGISTRY.values():
        assert rec.message and rec.kind in ("generic", "attack") and callable(rec.fn)


def test_bank_is_part_of_the_bundle_and_mistakes_does_not_import_the_loader():
    code = ("import sys; import judge.problem.mistakes; "
            "assert 'judge.problem.loader' not in sys.modules, 'import circle'; "
            "from judge.problem.loader import load_problem; b = load_problem('sinusoidal-pe'); "
            "assert b.bank is not None and b.bank.spec.family is not None and b.bank.module is not None")
    subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, check=True, env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"}
    )


def test_one_status_rule_documented_and_the_other_gone():
    import judge.verdict as v

    assert not hasattr(v, "most_serious") and not hasattr(v, "PRIORITY")
    assert "first case" in (v.Verdict.__doc__ or "")
