"""The counterexample tells nothing of a hidden case but which cases failed (it must not become a way to read hidden
inputs).

A function wrong only in its last row, and only from n rows on, got a counterexample exactly as long as the
failing hidden case it was shrunk from; moving n from one submission to the next read out every hidden length.
The search now builds its candidates from the domain, the public cases and which cases failed.  So, for a
family of such threshold answers on both problems: the bundle with every hidden case moved (other lengths on
the same side of n, other widths, bases, seeds and positions: tests/support/threshold.py) fails the same cases
and gives the same candidates (no sandbox needed) and, graded in the sandbox, byte for byte the same
counterexample -- which exists, and really is one (at least n rows long).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.support.threshold import PROBLEMS, REPO, THRESHOLDS, failing_cases, moved_bundle, threshold_source

SANDBOXED = (2, 9, 20, 100)  #: the thresholds graded in the sandbox too (each is four verdicts)


def _prepared(root: Path):
    from judge.grading.prepare import prepare
    from judge.problem.loader import load_problem

    return prepare(load_problem(root))


def _functions(prepared, failing: list[int]) -> list[str]:
    """The failing functions whose domain allows a search, in the order of their first failing case (as
    ``search.failing_functions`` orders a verdict's)."""
    from judge.diagnosis.counterexample.search import searchable

    allowed = searchable(prepared)
    order: list[str] = []
    for index in failing:
        name = prepared.cases[index].spec.function
        if name in allowed and name not in order:
            order.append(name)
    return order


def _candidates(prepared, n: int) -> tuple[list[int], list[str]]:
    from judge.diagnosis.counterexample.search import search_from

    failing = failing_cases(prepared, n)
    search = search_from(prepared, prepared.reference(), _functions(prepared, failing), failing)
    assert search is not None
    try:
        return failing, [c.key for c in search.candidates]
    finally:
        search.close()


def test_every_hidden_case_is_moved(tmp_path):
    """The control: the moved bundles really hold other arguments in every hidden case, and public ones as they
    were."""
    for problem in PROBLEMS:
        before = yaml.safe_load((REPO / "problems" / problem / "cases.yaml").read_text())["cases"]
        after = yaml.safe_load((moved_bundle(problem, tmp_path / problem, 9) / "cases.yaml").read_text())["cases"]
        for old, new in zip(before, after):
            if old.get("visibility", "hidden") == "hidden":
                assert new["args"] != old["args"], new["id"]
            else:
                assert new == old, new["id"]


@pytest.mark.parametrize("n", THRESHOLDS)
@pytest.mark.parametrize("problem", PROBLEMS)
def test_moving_every_hidden_case_leaves_the_candidates_as_they_were(tmp_path, problem, n):
    original = _prepared(REPO / "problems" / problem)
    moved = _prepared(moved_bundle(problem, tmp_path, n))
    try:
        failing, made = _candidates(original, n)
        moved_failing, moved_made = _candidates(moved, n)
        assert any(original.bundle.cases.cases[i].visibility == "hidden" for i in failing), "hidden cases fail"
        assert moved_failing == failing, "the moved bundle fails other cases: the test is not what it says"
        assert moved_made == made
    finally:
        original.close()
        moved.close()


def _rows(found) -> int:  # noqa: ANN001 - a Counterexample
    from judge.problem.inputs import materialize

    values = materialize(found.args)
    if "max_len" in values:
        return values["max_len"]
    return values["x"].shape[-2]


@pytest.mark.parametrize("n", SANDBOXED)
@pytest.mark.parametrize("problem", PROBLEMS)
def test_moving_every_hidden_case_leaves_the_counterexample_byte_for_byte(judge, tmp_path, problem, n):
    source = threshold_source(problem, n)
    verdict = judge.grade(source, REPO / "problems" / problem)
    moved = judge.grade(source, moved_bundle(problem, tmp_path, n))
    assert [(c.id, c.status) for c in moved.cases] == [(c.id, c.status) for c in verdict.cases], \
        "the moved bundle fails other cases: the test is not what it says"
    found = verdict.counterexample
    assert found is not None, f"no counterexample for a threshold of {n} rows ({verdict.status})"
    assert moved.counterexample is not None and moved.counterexample.model_dump_json() == found.model_dump_json()
    assert _rows(found) >= n, f"{found.call[:200]} is no counterexample of a threshold at {n} rows"
