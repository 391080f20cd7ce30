"""Pictures of failing public cases: heatmaps whose pixels follow the learner's output.

Real sandbox, real matplotlib (installed by .ci/run through the test extra); without matplotlib the judge
still grades, with no pictures."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from tests.support.common import REPO, SUBMISSIONS, require_sandbox, unavailable

WRONG = SUBMISSIONS / "wrong_answer" / "halves_not_interleaved.py"


def _pixels(path):
    import matplotlib.image

    return matplotlib.image.imread(str(path))


@pytest.fixture(scope="module")
def plt():
    try:
        from judge.diagnosis.pictures import _pyplot
    except ImportError as exc:  # pragma: no cover
        unavailable(f"judge.diagnosis.pictures: {exc}")
    mod = _pyplot()
    if mod is None:
        unavailable("matplotlib is not installed (pip install '.[pictures]')")
    return mod


def test_grade_writes_heatmaps_for_failing_public_cases_only(judge, plt, tmp_path):
    verdict = judge.grade(WRONG.read_bytes(), pictures_dir=tmp_path)
    public = {c.id for c in verdict.cases if c.visibility == "public"}
    assert verdict.pictures and {p.case for p in verdict.pictures} <= public
    kinds = {(p.case, p.kind) for p in verdict.pictures}
    assert {("ex-table-64x32", k) for k in ("expected", "yours", "difference", "column_pairs")} <= kinds
    for p in verdict.pictures:
        data = (tmp_path / p.file).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and p.media_type == "image/png"
    assert sorted(os.listdir(tmp_path)) == sorted(p.file for p in verdict.pictures)
    json.loads(verdict.model_dump_json())  # the references travel in the JSON verdict


def test_heatmap_pixels_differ_between_a_right_and_a_wrong_answer(judge, plt, tmp_path):
    from judge.diagnosis.pictures import case_pictures
    from judge.grading.terms import Terms

    wrong_dir, right_dir, again_dir = tmp_path / "wrong", tmp_path / "right", tmp_path / "again"
    judge.grade(WRONG.read_bytes(), pictures_dir=wrong_dir)
    prepared = judge.problem("sinusoidal-pe")
    case = next(c for c in prepared.cases if c.spec.id == "ex-table-64x32")
    terms = Terms(prepared.bundle.spec.function(case.spec.function), case.expected.shape)
    for folder in (right_dir, again_dir):
        folder.mkdir()
        case_pictures(plt, "ex-table-64x32", case.expected, case.expected.copy(), terms, folder, True)
    name = "ex-table-64x32-yours.png"
    right, wrong, again = _pixels(right_dir / name), _pixels(wrong_dir / name), _pixels(again_dir / name)
    assert right.shape == wrong.shape
    assert np.array_equal(right, again), "rendering is deterministic"
    assert np.mean(np.any(right != wrong, axis=-1)) > 0.05, "a wrong table looks different"
    diff_right = _pixels(right_dir / "ex-table-64x32-difference.png")
    diff_wrong = _pixels(wrong_dir / "ex-table-64x32-difference.png")
    assert not np.array_equal(diff_right, diff_wrong)


def test_cli_grade_pictures_writes_files(tmp_path, plt):
    require_sandbox()
    out = tmp_path / "pics"
    p = subprocess.run([sys.executable, "-m", "judge.cli", "grade", str(WRONG), "--pictures", str(out),
                        "--format", "json"], capture_output=True, cwd=REPO,
                       env={**os.environ, "PYTHONPATH": str(REPO)})
    assert p.returncode == 1, p.stderr.decode()[-800:]
    verdict = json.loads(p.stdout)
    assert verdict["pictures"] and all((out / pic["file"]).is_file() for pic in verdict["pictures"])


def test_without_matplotlib_the_judge_grades_and_draws_nothing(tmp_path):
    require_sandbox()
    code = ("import sys; sys.modules['matplotlib'] = None\n"
            "from judge.engine import Judge\n"
            f"with Judge() as j: v = j.grade(open({str(WRONG)!r}, 'rb').read(), pictures_dir={str(tmp_path)!r})\n"
            "assert v.status.value == 'wrong_answer' and v.pictures == [] and v.diagnoses, v.status\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, cwd=REPO,
                       env={**os.environ, "PYTHONPATH": str(REPO)})
    assert p.returncode == 0, p.stderr.decode()[-800:]
    assert not any(tmp_path.iterdir())
