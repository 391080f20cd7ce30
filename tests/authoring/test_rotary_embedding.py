"""The second problem, rotary-embedding: written as a bundle only, graded, diagnosed and exported like the first;
and the bundle format's ``raises:`` cases (a call that must raise ValueError)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from judge.problem.loader import available, load_problem
from judge.verdict import Status
from tests.support.common import REPO

EXAMPLES = REPO / "submissions" / "rotary-embedding"
GOOD = (EXAMPLES / "accepted" / "vectorised.py").read_text()


def _with_odd_branch(body: str) -> str:
    """The accepted solution with its odd-d branch replaced by ``body``."""
    return GOOD.replace('raise ValueError("the feature dimension must be even")', body)


def test_bundle_covers_what_the_issue_lists():
    bundle = load_problem("rotary-embedding")
    cases = bundle.cases.cases
    rope = [c for c in cases if c.function == "apply_rope"]
    ndims = {len(c.args["x"].generate.shape) if c.args["x"].generate else np.ndim(c.args["x"].literal) for c in rope}
    assert {2, 3, 5} <= ndims  # no, one and several leading axes
    positions = [c.args["positions"].literal for c in rope if "positions" in c.args]
    assert any(list(p) != sorted(p) for p in positions) and any(len(set(p)) < len(p) for p in positions)
    assert any("base" in c.args for c in rope) and any("base" in c.args for c in cases if c.function == "rope_angles")
    assert any(c.args["x"].generate and c.args["x"].generate.shape[-1] == 2 for c in rope)
    assert {a.layout for c in rope for a in [c.args["x"]]} == {"c", "fortran", "strided"}
    assert any(c.args["x"].readonly for c in rope)
    assert any(c.args["x"].generate and c.args["x"].generate.dtype == "float32" for c in rope)
    assert {c.function for c in cases if c.raises == "ValueError"} == {"apply_rope", "rope_angles"}
    ids = {m.id for m in bundle.bank.spec.mistakes}
    assert {"half_split_convention", "rotation_negative", "positions_ignored", "frequencies_grow",
            "exponent_uses_i_not_2i", "exponent_divides_by_d_minus_1", "sin_cos_swapped", "input_mutated",
            "angles_in_float32", "wrong_sequence_axis", "positions_off_by_one", "odd_d_not_rejected"} <= ids
    assert {p.id for p in bundle.bank.spec.properties} == {"pair_norm_preserved", "relative_position"}
    accepted = list((EXAMPLES / "accepted").glob("*.py"))
    assert len(accepted) >= 5
    wrong = {p.stem for p in (EXAMPLES / "wrong_answer").glob("*.py")}
    assert {m.id for m in bundle.bank.spec.mistakes if m.implements} <= wrong
    assert {"accepted", "wrong_answer", "runtime_error", "time_limit_exceeded", "memory_limit_exceeded",
            "compile_error"} <= {p.name for p in EXAMPLES.iterdir()}


def test_both_problems_are_listed_by_the_cli_and_the_service():
    from click.testing import CliRunner

    from judge.cli import main
    from judge.service.problems import detail, summaries

    assert {"sinusoidal-pe", "rotary-embedding"} <= set(available())
    out = CliRunner().invoke(main, ["problems"]).output
    assert "rotary-embedding" in out and "sinusoidal-pe" in out
    assert {"sinusoidal-pe", "rotary-embedding"} <= {s["id"] for s in summaries()}
    examples = detail("rotary-embedding")["examples"]
    assert [e.get("raises") for e in examples] == [None, None, "ValueError"]
    assert np.allclose(examples[0]["expected"][1], [0.5403023, 0.8414710, 0.9999500, 0.0099998], atol=1e-7)


def test_a_reference_that_does_not_raise_where_the_case_says_is_a_bundle_error(tmp_path):
    import shutil

    from judge.errors import BundleError
    from judge.grading.prepare import prepare

    root = tmp_path / "rotary-embedding"
    shutil.copytree(REPO / "problems" / "rotary-embedding", root)
    ref = root / "reference.py"
    ref.write_text(ref.read_text().replace('raise ValueError(f"the last axis', 'raise TypeError(f"the last axis'))
    with pytest.raises(BundleError, match="ex-odd-d must raise ValueError, but the reference raised TypeError"):
        prepare(load_problem(root))


def test_raises_cases_accept_valueerror_and_subclasses_only(judge):
    grade = lambda source: judge.grade(source, "rotary-embedding")  # noqa: E731
    verdict = grade(_with_odd_branch('raise ValueError("odd d")'))
    assert verdict.status is Status.ACCEPTED, verdict.message
    subclass = "class OddDimension(ValueError):\n    pass\n\n\n" + _with_odd_branch('raise OddDimension("odd")')
    assert grade(subclass).status is Status.ACCEPTED
    other = grade(_with_odd_branch('raise TypeError("odd d")'))
    odd = next(c for c in other.cases if c.id == "ex-odd-d")
    assert other.status is Status.RUNTIME_ERROR and odd.status is Status.RUNTIME_ERROR
    assert "TypeError" in odd.message and "must raise ValueError" in odd.message
    returned = grade(_with_odd_branch("return np.array(x, dtype=float)"))
    odd = next(c for c in returned.cases if c.id == "ex-odd-d")
    assert returned.status is Status.WRONG_ANSWER and odd.status is Status.WRONG_ANSWER
    assert "must raise ValueError" in odd.message and "returned an array of shape (2, 3)" in odd.message
    hidden = next(c for c in returned.cases if c.id == "rope-odd-d")
    assert hidden.status is Status.WRONG_ANSWER and "odd d" not in hidden.message  # hidden: no description


@pytest.mark.parametrize("name, mistake", [("odd_d_not_rejected", "odd_d_not_rejected"),
                                           ("half_split_convention", "half_split_convention"),
                                           ("positions_ignored", "positions_ignored"),
                                           ("wrong_sequence_axis", "wrong_sequence_axis"),
                                           # generic recogniser; float32 errors scale with the output's size
                                           ("angles_in_float32", "float32_precision")])
def test_banked_mistakes_are_named(judge, name, mistake):
    verdict = judge.grade((EXAMPLES / "wrong_answer" / f"{name}.py").read_bytes(), "rotary-embedding")
    assert verdict.status is Status.WRONG_ANSWER
    assert verdict.diagnoses and verdict.diagnoses[0].id == mistake and verdict.diagnoses[0].explains


def test_property_checks_report_what_breaks(judge):
    verdict = judge.grade((EXAMPLES / "wrong_answer" / "half_split_convention.py").read_bytes(), "rotary-embedding")
    checks = {c.id: c for c in verdict.checks}
    assert checks["pair_norm_preserved"].holds is False and checks["relative_position"].holds is False
    verdict = judge.grade((EXAMPLES / "wrong_answer" / "frequencies_grow.py").read_bytes(), "rotary-embedding")
    checks = {c.id: c for c in verdict.checks}
    assert checks["pair_norm_preserved"].holds and checks["relative_position"].holds


def test_exports_for_the_second_problem(judge):
    from judge.formats import export

    bundle = load_problem("rotary-embedding")
    verdict = judge.grade((EXAMPLES / "wrong_answer" / "rotation_negative.py").read_bytes(), "rotary-embedding")
    gradescope = json.loads(export(verdict, "gradescope", bundle))
    assert len(gradescope["tests"]) == len(bundle.cases.cases) and gradescope["score"] < gradescope.get(
        "max_score", 100)
    exercism = json.loads(export(verdict, "exercism", bundle))
    assert exercism["status"] == "fail" and len(exercism["tests"]) == len(bundle.cases.cases)
    prairielearn = json.loads(export(verdict, "prairielearn", bundle))
    assert 0 <= prairielearn["score"] < 1


def test_platform_entry_points_grade_the_second_problem(tmp_path):
    """What runs inside Exercism's and PrairieLearn's containers, run here on rotary-embedding."""
    from tests.support.common import require_sandbox

    require_sandbox()
    from judge.platforms import exercism

    for example, want in (("accepted/complex_numbers.py", "pass"), ("wrong_answer/positions_ignored.py", "fail")):
        solution, output = tmp_path / want / "in", tmp_path / want / "out"
        solution.mkdir(parents=True)
        output.mkdir()
        (solution / "rotary_embedding.py").write_bytes((EXAMPLES / example).read_bytes())
        assert exercism.run("rotary-embedding", solution, output, REPO / "problems") == 0
        results = json.loads((output / "results.json").read_text())
        assert results["status"] == want, results.get("message")
        assert len(results["tests"]) == len(load_problem("rotary-embedding").cases.cases)
