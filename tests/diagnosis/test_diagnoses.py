"""Named mistakes: every wrong-answer example gets its ``# diagnosis:`` id first, with the real sandbox."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from tests.support.common import PROBLEM_DIR, SUBMISSIONS
from tests.support.graded_examples import graded

WRONG = sorted((SUBMISSIONS / "wrong_answer").glob("*.py"))
ACCEPTED = sorted((SUBMISSIONS / "accepted").glob("*.py"))
REQUIRED_IDS = {"sin_cos_swapped", "frequencies_grow", "halves_not_interleaved", "positions_start_at_one",
                "exponent_uses_i_not_2i", "odd_last_column_not_zero", "odd_exponent_wrong_d", "base_ignored",
                "input_mutated", "wrong_sequence_axis", "transposed", "float32_precision", "not_ndarray",
                "non_finite"}


def verdict_of(judge, path: Path):
    """The example's verdict, graded once per session (tests.support.graded_examples: other modules grade it too)."""
    return graded(judge, path, PROBLEM_DIR)


def test_every_wrong_answer_example_names_its_diagnosis():
    from judge.authoring.verify import expected_diagnosis

    ids = {expected_diagnosis(p.read_bytes()) for p in WRONG}
    assert None not in ids, "every wrong_answer example carries a '# diagnosis: <id>' line"
    assert ids >= REQUIRED_IDS


@pytest.mark.parametrize("path", WRONG, ids=lambda p: p.stem)
def test_wrong_answer_gets_its_diagnosis_first(judge, path):
    """The '# diagnosis:' name first and explaining (or no name at all for 'none'); '# facts:' recovered."""
    from judge.diagnosis.expectations import check, expected_diagnosis

    verdict = verdict_of(judge, path)
    assert verdict.status.value == "wrong_answer"
    want, got, ok = check(path.read_bytes(), verdict)
    assert ok, (want, got, [(d.id, d.explains, d.confidence) for d in verdict.diagnoses])
    confidences = [d.confidence for d in verdict.diagnoses]
    assert confidences == sorted(confidences, reverse=True), "most likely first"
    explaining = [d for d in verdict.diagnoses if d.explains]
    assert verdict.diagnoses[:len(explaining)] == explaining, "explanations before partial names"
    if expected_diagnosis(path.read_bytes()) != "none":
        first = verdict.diagnoses[0]
        assert first.message and first.confidence == 1 and first.cases and len(first.cases) == first.checked
        failing = {c.id for c in verdict.cases if c.status.value == "wrong_answer"}
        assert set(first.cases) <= failing


@pytest.mark.parametrize("path", ACCEPTED, ids=lambda p: p.stem)
def test_accepted_gets_no_diagnoses(judge, path):
    verdict = verdict_of(judge, path)
    assert verdict.accepted
    assert verdict.diagnoses == [] and verdict.checks == []


@pytest.mark.parametrize("path", WRONG, ids=lambda p: p.stem)
def test_hidden_cases_reveal_no_locations_or_values(judge, path):
    verdict = verdict_of(judge, path)
    hidden = {c.id for c in verdict.cases if c.visibility == "hidden"}
    for d in verdict.diagnoses:
        assert not any(re.search(rf"\b{re.escape(h)}\b", d.evidence) for h in hidden), d.evidence
        assert not any(h in d.message for h in hidden)
    for case in verdict.cases:
        if case.visibility != "hidden":
            continue
        assert "index" not in case.message and "position p=" not in case.message and "expected 0." not in case.message
        if case.facts is not None:
            f = case.facts
            assert f.worst_index is None and f.worst_where is None and f.window is None
            assert f.expected_at_worst is None and f.got_at_worst is None and f.nonfinite_where is None


def test_facts_speak_the_exercises_terms(judge):
    verdict = verdict_of(judge, SUBMISSIONS / "wrong_answer" / "sin_cos_swapped.py")
    public = next(c for c in verdict.cases if c.id == "ex-table-3x4")
    f = public.facts
    assert f.worst_where.startswith("position p=") and "column j=" in f.worst_where
    assert re.search(r"pair i=\d+, (sin|cos)", f.worst_where)
    assert f.window is not None and f.window.row_label == "p" and f.window.col_label == "j"
    assert len(f.window.expected) == len(f.window.rows) and len(f.window.expected[0]) == len(f.window.cols)
    hidden = next(c for c in verdict.cases if c.id == "table-medium")
    assert set(hidden.facts.mismatch_kinds) == {"sin columns", "cos columns"}
    assert sum(hidden.facts.mismatch_kinds.values()) == hidden.facts.mismatched
    batch = next(c for c in verdict.cases if c.id == "add-3-leading-axes")
    assert batch.facts.mismatch_kinds and batch.facts.worst_where is None
    checks = {c.id: c for c in verdict.checks}
    assert checks["unit_circle"].holds and not checks["row_zero"].holds
    odd = verdict_of(judge, SUBMISSIONS / "wrong_answer" / "odd_last_column_not_zero.py")
    ex = next(c for c in odd.cases if c.id == "ex-table-2x5")
    assert "unpaired last column" in ex.facts.worst_where
    assert ex.facts.mismatch_kinds == {"unpaired last column": 1}


def test_nan_is_located_for_public_cases(judge):
    verdict = verdict_of(judge, SUBMISSIONS / "wrong_answer" / "nan_output.py")
    ex = next(c for c in verdict.cases if c.id == "ex-table-3x4")
    assert ex.facts.nonfinite == 1 and ex.facts.nonfinite_where.startswith("position p=0, column j=0")
    assert ex.facts.window.got[0][0] is None  # NaN shown as missing, not as a number


def test_unknown_mistake_gets_an_honest_empty_list(judge):
    from judge.formats.text import render_text

    source = b'''import numpy as np


def sinusoidal_pe(max_len, d_model, base=10000.0):
    pe = np.zeros((max_len, d_model))
    n = d_model // 2
    ang = np.arange(max_len)[:, None] / base ** (2 * np.arange(n) / d_model)
    pe[:, 0:2 * n:2] = np.sin(ang)
    pe[:, 1:2 * n:2] = np.cos(ang)
    return pe * 1.5


def add_positional_encoding(x, base=10000.0):
    x = np.asarray(x)
    return x + sinusoidal_pe(x.shape[-2], x.shape[-1], base)
'''
    verdict = judge.grade(source)
    assert verdict.status.value == "wrong_answer"
    assert verdict.diagnoses == []
    text = render_text(verdict)
    assert "No known mistake explains every failing case" in text
    assert any(not c.holds and c.id == "unit_circle" for c in verdict.checks), "the facts still speak"


def test_text_report_puts_the_diagnosis_first_without_colour(judge):
    from judge.formats.text import render_text

    verdict = verdict_of(judge, SUBMISSIONS / "wrong_answer" / "halves_not_interleaved.py")
    plain = render_text(verdict, color=False)
    assert "\x1b[" not in plain
    assert plain.index("What went wrong") < plain.index("halves_not_interleaved") < plain.index("case  ")
    assert "Expected vs got, case ex-table-3x4" in plain and "Properties of your output" in plain
    coloured = render_text(verdict, color=True)
    assert "\x1b[" in coloured


def test_generic_recognisers_need_no_bank(tmp_path, judge):
    """A bundle without mistakes.yaml still gets the judge's generic diagnoses, worded generically."""
    root = tmp_path / "plain-pe"
    shutil.copytree(PROBLEM_DIR, root)
    (root / "mistakes.yaml").unlink()
    (root / "mistakes.py").unlink()
    text = (root / "problem.yaml").read_text()
    (root / "problem.yaml").write_text(re.sub(r"(?m)^mistakes:.*\n", "", text))
    shutil.rmtree(root / "translations")  # they translate the bank's messages: without a bank, unknown ids
    verdict = judge.grade((SUBMISSIONS / "wrong_answer" / "returns_list.py").read_bytes(), root)
    assert verdict.diagnoses[0].id == "not_ndarray" and "numpy.ndarray" in verdict.diagnoses[0].message
    verdict = judge.grade((SUBMISSIONS / "wrong_answer" / "sin_cos_swapped.py").read_bytes(), root)
    assert all(d.id != "sin_cos_swapped" for d in verdict.diagnoses)


def test_broken_bank_is_a_bundle_error_naming_the_file(tmp_path):
    from judge.errors import BundleError
    from judge.problem.loader import load_problem

    root = tmp_path / "broken-pe"
    shutil.copytree(PROBLEM_DIR, root)
    bank = root / "mistakes.yaml"
    bank.write_text(bank.read_text().replace("{sinusoidal_pe: swapped_pe,", "{sinusoidal_p: swapped_pe,"))
    with pytest.raises(BundleError, match="mistakes.yaml.*unknown function sinusoidal_p"):
        load_problem(root)
    bank.write_text("schema_version: 1\nmistakes:\n  - id: Bad Id\n    message: x\n")
    with pytest.raises(BundleError, match=r"mistakes.yaml:3: mistakes\[0\].id"):
        load_problem(root)
