"""Grading, diagnosis and exports from stored runs, through the replay backend: no root, no sandbox.

The stored runs (tests/data/runs) are real sandboxed runs of example files, recorded by
``judge.sandbox.fake.RecordingBackend``; everything after the run is the judge's real code.
"""

from __future__ import annotations

import json

import pytest

from fake_support import RECORDED, RUNS, SOURCES, make_small_bundle



@pytest.fixture(scope="module")
def bundle(tmp_path_factory):
    return make_small_bundle(tmp_path_factory.mktemp("small"))


@pytest.fixture(scope="module")
def judge():
    from judge import Judge
    from judge.sandbox.fake import ReplayBackend

    with Judge(backend_factory=lambda slot: ReplayBackend.from_dir(RUNS)) as j:
        yield j


def test_replay_backend_meets_the_contract():
    from judge.sandbox.contract import SandboxBackend
    from judge.sandbox.fake import RecordingBackend, ReplayBackend

    backend = ReplayBackend.from_dir(RUNS)
    assert isinstance(backend, SandboxBackend)
    assert isinstance(RecordingBackend(backend), SandboxBackend)
    backend.close()
    assert not backend.alive()


@pytest.mark.parametrize("stem", sorted(RECORDED))
def test_stored_runs_grade_as_recorded(judge, bundle, stem):
    v = judge.grade(SOURCES[stem].read_text(), bundle)
    assert v.status.value == RECORDED[stem], (v.status, v.message)
    assert v.isolation is not None and v.isolation.mode in ("full", "rootless", "reduced")


def test_replayed_details_reach_the_verdict(judge, bundle):
    hog = judge.grade(SOURCES["memory_hog"].read_text(), bundle)
    assert hog.resources.oom_kills >= 1 and "memory limit" in hog.message
    assert [c.status.value for c in hog.cases][1:] == ["skipped"] * (len(hog.cases) - 1)
    mutated = judge.grade(SOURCES["input_mutated"].read_text(), bundle)
    assert any(c.input_changed for c in mutated.cases), [c.message for c in mutated.cases]
    swapped = judge.grade(SOURCES["sin_cos_swapped"].read_text(), bundle)
    assert swapped.diagnoses and swapped.diagnoses[0].id.startswith("sin_cos"), swapped.diagnoses


@pytest.mark.parametrize("fmt", ["gradescope", "exercism", "junit"])
def test_exports_from_replayed_verdicts(judge, bundle, fmt):
    from judge.formats import export
    from judge.problem.loader import load_problem

    v = judge.grade(SOURCES["sin_cos_swapped"].read_text(), bundle)
    text = export(v, fmt, load_problem(bundle))
    if fmt != "junit":
        data = json.loads(text)
        assert data
    assert "ex-table-3x4" in text or "sinusoidal" in text


def test_unknown_source_is_an_internal_error_not_a_crash(judge, bundle):
    v = judge.grade("import numpy as np\n\ndef sinusoidal_pe(max_len, d_model, base=10000.0):\n    return 1\n"
                    "\ndef add_positional_encoding(x, base=10000.0):\n    return x\n", bundle)
    assert v.status.value == "internal_error" and "no stored run" in v.message


def test_readme_guarantee_table_is_the_code_table():
    """One source: the README's table is rendered from judge.sandbox.guarantees."""
    from fake_support import REPO
    from judge.sandbox.guarantees import render_markdown

    text = (REPO / "README.md").read_text()
    start = text.index("<!-- guarantee-table:start")
    start = text.index("\n", start) + 1
    end = text.index("<!-- guarantee-table:end -->")
    assert text[start:end] == render_markdown()
