"""Grading, diagnosis and exports from stored runs, through the replay backend: no root, no sandbox.

The stored runs (tests/data/runs) are real sandboxed runs of example files, recorded by
``judge.sandbox.backends.fake.RecordingBackend``; everything after the run is the judge's real code.
"""

from __future__ import annotations

import json

import pytest

from tests.support.fake import RECORDED, RUNS, SOURCES, make_small_bundle


@pytest.fixture(scope="module")
def small_bundle(tmp_path_factory):
    return make_small_bundle(tmp_path_factory.mktemp("small"))


@pytest.fixture(scope="module")
def replay_judge():
    from judge import Judge
    from judge.sandbox.backends.fake import ReplayBackend

    with Judge(backend_factory=lambda slot: ReplayBackend.from_dir(RUNS)) as j:
        yield j


def test_replay_backend_meets_the_contract():
    from judge.sandbox.backends.fake import RecordingBackend, ReplayBackend
    from judge.sandbox.boundary.contract import SandboxBackend

    backend = ReplayBackend.from_dir(RUNS)
    assert isinstance(backend, SandboxBackend)
    assert isinstance(RecordingBackend(backend), SandboxBackend)
    backend.close()
    assert not backend.alive()


@pytest.mark.parametrize("stem", sorted(RECORDED))
def test_stored_runs_grade_as_recorded(replay_judge, small_bundle, stem):
    v = replay_judge.grade(SOURCES[stem].read_text(), small_bundle)
    assert v.status.value == RECORDED[stem], (v.status, v.message)
    assert v.isolation is not None and v.isolation.mode in ("full", "rootless", "reduced")


def test_replayed_details_reach_the_verdict(replay_judge, small_bundle):
    hog = replay_judge.grade(SOURCES["memory_hog"].read_text(), small_bundle)
    assert hog.resources.oom_kills >= 1 and "memory limit" in hog.message
    assert [c.status.value for c in hog.cases][1:] == ["skipped"] * (len(hog.cases) - 1)
    mutated = replay_judge.grade(SOURCES["input_mutated"].read_text(), small_bundle)
    assert any(c.input_changed for c in mutated.cases), [c.message for c in mutated.cases]
    swapped = replay_judge.grade(SOURCES["sin_cos_swapped"].read_text(), small_bundle)
    assert swapped.diagnoses and swapped.diagnoses[0].id.startswith("sin_cos"), swapped.diagnoses


@pytest.mark.parametrize("fmt", ["gradescope", "exercism", "junit"])
def test_exports_from_replayed_verdicts(replay_judge, small_bundle, fmt):
    from judge.formats import export
    from judge.problem.loader import load_problem

    v = replay_judge.grade(SOURCES["sin_cos_swapped"].read_text(), small_bundle)
    text = export(v, fmt, load_problem(small_bundle))
    if fmt != "junit":
        data = json.loads(text)
        assert data
    assert "ex-table-3x4" in text or "sinusoidal" in text
    assert v.counterexample is not None and "A smallest input where your function differs" in text
    assert v.counterexample.call in text, "the call itself, as a learner would paste it"


def test_unknown_source_is_an_internal_error_not_a_crash(replay_judge, small_bundle):
    v = replay_judge.grade("import numpy as np\n\ndef sinusoidal_pe(max_len, d_model, base=10000.0):\n    return 1\n"
                    "\ndef add_positional_encoding(x, base=10000.0):\n    return x\n", small_bundle)
    assert v.status.value == "internal_error" and "no stored run" in v.message


def test_readme_guarantee_table_is_the_code_table():
    """One source: the README's table is rendered from judge.sandbox.modes.guarantees."""
    from judge.sandbox.modes.guarantees import render_markdown
    from tests.support.fake import REPO

    text = (REPO / "README.md").read_text()
    start = text.index("<!-- guarantee-table:start")
    start = text.index("\n", start) + 1
    end = text.index("<!-- guarantee-table:end -->")
    assert text[start:end] == render_markdown()


def test_replayed_counterexample_is_the_recorded_search(replay_judge, small_bundle):
    """The search's run was recorded beside the grading run: replayed, its request must be the very one recorded
    (same candidates, so a deterministic search), and the counterexample comes out of the judge's own code."""
    swapped = replay_judge.grade(SOURCES["sin_cos_swapped"].read_text(), small_bundle)
    found = swapped.counterexample
    assert found is not None and found.differs == "values", found
    assert found.function in ("sinusoidal_pe", "add_positional_encoding")
    assert replay_judge.grade(SOURCES["vectorised"].read_text(), small_bundle).counterexample is None


def test_replay_refuses_a_run_it_did_not_record():
    """A stored run answers only the calls it was recorded for (the grading run is no answer to a search)."""
    from judge.sandbox.backends.fake import ReplayBackend
    from judge.sandbox.boundary.contract import BackendError, Call, RunLimits, RunRequest

    backend = ReplayBackend.from_dir(RUNS)
    backend.result_buffer_for(1 << 16)
    request = RunRequest(
        source=SOURCES["sin_cos_swapped"].read_text(),
        calls=(Call(0, "sinusoidal_pe", (), 0, 4096, 1.0),),
        input_size=0,
        result_size=1 << 16,
        limits=RunLimits(cpu_seconds=1, wall_seconds=1, memory_bytes=1 << 28, max_processes=4, output_bytes=1024),
    )
    with pytest.raises(BackendError):
        backend.run(request, None)
    backend.close()


def test_a_label_and_its_text_are_joined_as_each_language_writes_them(replay_judge, small_bundle):
    """French puts a space before a colon ("réponse incorrecte : ..."), English and Russian do not: a result
    file's test names and status lines join a label and its text with the catalog's ``join.labelled``."""
    from judge.formats import export_for_learners
    from judge.problem.loader import load_problem

    v = replay_judge.grade(SOURCES["sin_cos_swapped"].read_text(), small_bundle)
    bundle = load_problem(small_bundle)
    for lang, status in (("en", "wrong answer: "), ("fr", "réponse incorrecte : "), ("ru", "неверный ответ: ")):
        tests = json.loads(export_for_learners(v, "gradescope", bundle, lang))["tests"]
        failed = [t for t in tests if t["status"] == "failed"]
        assert failed and all(t["output"].startswith(status) for t in failed), (lang, failed[0]["output"][:80])
        colons = {t["name"].count(" : ") for t in tests}
        assert colons == ({1} if lang == "fr" else {0}), (lang, [t["name"] for t in tests])
