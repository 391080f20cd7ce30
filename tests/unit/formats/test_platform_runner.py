"""The packaged runs' shared path, without containers: which file is graded, what a run that cannot grade writes.

(The platform-shaped runs themselves are in test_platforms.py, tier `container`.)
"""

from __future__ import annotations

import json
import os

import jsonschema
import pytest

from tests.support.common import PROBLEM_DIR, REPO

SCHEMAS = REPO / "tests" / "platform_schemas"


def test_the_named_file_wins_then_the_only_one(tmp_path):
    from judge.platforms.runner import find_submission

    (tmp_path / "helper.py").write_text("x = 1\n")
    (tmp_path / "sinusoidal_pe.py").write_text("y = 2\n")
    assert find_submission(tmp_path, "sinusoidal_pe.py").source == b"y = 2\n"
    (tmp_path / "sinusoidal_pe.py").unlink()
    found = find_submission(tmp_path, "sinusoidal_pe.py")
    assert found.source == b"x = 1\n" and found.name == "helper.py"


@pytest.mark.parametrize("files,expect", [([], "no Python file or notebook"), (["a.py", "sub/b.py"], "several files"),
                                          (["a.py", "answer.ipynb"], "several files"),
                                          (["__MACOSX/._a.py", ".hidden/a.py", ".ipynb_checkpoints/a-checkpoint.ipynb"],
                                           "no Python file or notebook")])
def test_none_or_several_is_a_clear_problem(tmp_path, files, expect):
    from judge.platforms.runner import find_submission

    for name in files:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("pass\n")
    found = find_submission(tmp_path, "sinusoidal_pe.py")
    assert found.source is None and expect in found.problem and "sinusoidal_pe.py" in found.problem


def test_a_notebook_is_a_submission(tmp_path):
    """Colab and JupyterLab hand in notebooks: the one named for the problem, else the only one."""
    from judge.platforms.runner import find_submission

    (tmp_path / "homework.ipynb").write_text('{"cells": []}')
    found = find_submission(tmp_path, "sinusoidal_pe.py")
    assert found.source == b'{"cells": []}' and found.name == "homework.ipynb"
    (tmp_path / "notes.py").write_text("x = 1\n")
    (tmp_path / "sinusoidal_pe.ipynb").write_text('{"cells": [1]}')
    assert find_submission(tmp_path, "sinusoidal_pe.py").name == "sinusoidal_pe.ipynb", "the problem's own name wins"


def test_a_symlink_is_refused(tmp_path):
    """A submitted link could point at the grader's own files (the bundle, the platform's secrets)."""
    from judge.platforms.runner import find_submission

    os.symlink(PROBLEM_DIR / "reference.py", tmp_path / "sinusoidal_pe.py")
    found = find_submission(tmp_path, "sinusoidal_pe.py")
    assert found.source is None and "symbolic link" in found.problem


def test_exercism_skips_its_test_files(tmp_path):
    from judge.platforms.exercism import _not_the_solution
    from judge.platforms.runner import find_submission

    (tmp_path / "pe.py").write_text("ok = 1\n")
    (tmp_path / "pe_test.py").write_text("bad = 1\n")
    assert find_submission(tmp_path, "sinusoidal_pe.py", _not_the_solution).source == b"ok = 1\n"


@pytest.mark.parametrize("platform", ["gradescope", "prairielearn", "exercism"])
def test_nothing_to_grade_still_writes_a_valid_result_and_exits_0(tmp_path, capsys, platform):
    from judge.platforms import exercism, gradescope, prairielearn

    if platform == "gradescope":
        (tmp_path / "submission").mkdir()
        code = gradescope.run(tmp_path, PROBLEM_DIR)
        result, schema = tmp_path / "results" / "results.json", "gradescope-results.schema.json"
    elif platform == "prairielearn":
        (tmp_path / "student").mkdir()
        code = prairielearn.run(tmp_path, PROBLEM_DIR)
        result, schema = tmp_path / "results" / "results.json", "prairielearn-results.schema.json"
    else:
        problems = tmp_path / "problems"
        problems.mkdir()
        os.symlink(PROBLEM_DIR, problems / "sinusoidal-pe")
        (tmp_path / "in").mkdir()
        code = exercism.run("sinusoidal-pe", tmp_path / "in", tmp_path / "out", problems)
        result, schema = tmp_path / "out" / "results.json", "exercism-results.schema.json"
    assert code == 0
    data = json.loads(result.read_text())
    jsonschema.validate(data, json.loads((SCHEMAS / schema).read_text()))
    assert "Python file" in json.dumps(data)
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"judge: {platform}: isolation not reached: nothing to grade")


def test_prairielearn_info_json_follows_its_schema():
    from judge.platforms.prairielearn import info_json
    from judge.problem.loader import load_problem

    info = info_json(load_problem(PROBLEM_DIR), "example/numpy-judge:1", "0b9f6c4e-3d1a-4c55-9a0e-6f1d2b3c4d5e")
    jsonschema.validate(info, json.loads((SCHEMAS / "prairielearn-info.schema.json").read_text()))
    assert info["gradingMethod"] == "External" and info["externalGradingOptions"]["timeout"] <= 600


def test_exercism_smoke_comparison_ignores_only_machine_dependent_text(tmp_path):
    from judge.platforms.exercism import compare

    base = {"version": 3, "status": "fail", "tests": [
        {"name": "a", "status": "fail", "message": "took 12 ms", "test_code": "f()"}]}
    same = json.loads(json.dumps(base))
    same["tests"][0]["message"] = "took 40 ms"
    other = json.loads(json.dumps(base))
    other["tests"][0]["status"] = "pass"
    other["tests"][0]["message"] = None
    paths = []
    for n, data in enumerate((base, same, other)):
        paths.append(tmp_path / f"{n}.json")
        paths[-1].write_text(json.dumps(data))
    assert compare(paths[0], paths[1]) == 0
    assert compare(paths[0], paths[2]) == 1
