"""Courses that already grade with otter-grader or nbgrader keep their tool and grade with the judge,
run with the real tools: `otter generate` + `otter run` on a fixture assignment, and
`nbgrader generate_assignment` + `nbgrader autograde` + `nbgrader export` on a one-assignment course.

The tools live in their own virtualenv (.ci/notebook-tools.sh makes it; their dependencies would otherwise pin
the test environment's): JUDGE_NBTOOLS, default /opt/judge-nbtools.  Their kernels import this checkout's judge
(PYTHONPATH) and find the full bundle through JUDGE_PROBLEMS_DIR, as a course's grading machine would.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.common import REPO, SUBMISSIONS, require_sandbox, unavailable

TOOLS = Path(os.environ.get("JUDGE_NBTOOLS", "/opt/judge-nbtools"))

# learners' files from the examples, pasted into a cell each, as learners do
RIGHT = (SUBMISSIONS / "accepted" / "vectorised.py").read_text()
SWAPPED = (SUBMISSIONS / "wrong_answer" / "sin_cos_swapped.py").read_text()
UNRELATED_CRASH = 'data = np.load("my_data.npy")  # only on the learner\'s laptop'


def _tool(name: str) -> Path:
    path = TOOLS / "bin" / name
    if not path.is_file():
        unavailable(f"{path} missing: bash .ci/notebook-tools.sh makes the otter/nbgrader virtualenv")
    return path


def _env() -> dict[str, str]:
    # the virtualenv's bin first, as when it is activated: nbgrader runs `alembic` from PATH
    return {**os.environ, "PATH": f"{TOOLS / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}",
            "PYTHONPATH": str(REPO), "JUDGE_PROBLEMS_DIR": str(REPO / "problems")}


def _run(*argv: str | Path, cwd: Path) -> subprocess.CompletedProcess:
    done = subprocess.run([str(a) for a in argv], cwd=cwd, env=_env(), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{argv}\n{done.stdout[-3000:]}\n{done.stderr[-6000:]}"
    return done


def _notebook(cells: list[str], metadata: list[dict] | None = None):
    import nbformat
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

    nb = new_notebook(cells=[new_markdown_cell("# Week 2: positional encodings")]
                      + [new_code_cell(c, metadata=(metadata or [{}] * len(cells))[k]) for k, c in enumerate(cells)])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return nbformat, nb


# -- otter ----------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def otter_assignment(tmp_path_factory) -> Path:
    require_sandbox()
    otter = _tool("otter")
    root = tmp_path_factory.mktemp("otter-assignment")
    _run("python3", "-m", "judge", "package", "otter", "sinusoidal-pe", "-o", root, cwd=REPO)
    config = json.loads((root / "otter_config.json").read_text())  # the plugin, with the bundle's absolute path
    assert config["plugins"] == [{"judge.platforms.otter_plugin.JudgePlugin": {
        "bundles": {"sinusoidal-pe": str((REPO / "problems" / "sinusoidal-pe").resolve())}}}]
    _run(otter, "generate", "-t", "tests", "-o", "autograder.zip", "--no-requirements", "--no-environment",
         cwd=root)
    return root


def _otter_run(root: Path, name: str, cells: list[str]) -> dict:
    nbformat, nb = _notebook(cells)
    nbformat.write(nb, root / f"{name}.ipynb")
    out = root / f"out-{name}"
    out.mkdir()
    _run(_tool("otter"), "run", "-a", "autograder.zip", "-o", out, f"{name}.ipynb", cwd=root)
    return json.loads((out / "results.json").read_text())


def _otter_test(results: dict) -> dict:
    return next(t for t in results["tests"] if t["name"] == "sinusoidal-pe")


def test_otter_run_gives_the_points_to_a_correct_notebook_despite_an_unrelated_crash(otter_assignment):
    results = _otter_run(otter_assignment, "right", ["import numpy as np", RIGHT, UNRELATED_CRASH])
    test = _otter_test(results)
    assert test["score"] == test["max_score"] == 1.0, test


def test_otter_run_fails_a_wrong_notebook_with_the_judges_diagnosis(otter_assignment):
    results = _otter_run(otter_assignment, "swapped", ["import numpy as np", "%matplotlib inline", SWAPPED])
    test = _otter_test(results)
    assert test["score"] == 0, test
    assert "sin_cos_swapped" in test["output"] and "Sine and cosine are swapped" in test["output"]
    # graded from the saved notebook by the plugin: its cell numbers are the notebook's (cell 4: the answer)
    assert "public cases: 0 of 4 passed" in test["output"] and "graded the definitions in cell 4" in test["output"]
    assert "otter also ran this notebook's cells" in test["output"]


def test_otter_package_in_french_reports_in_french(tmp_path):
    """`judge package otter --lang fr`: the plugin's entry carries the course's language (otter tells the plugin
    no learner's), and the report otter records is French, with no English sentence."""
    from tests.support.i18n import english_sentences

    require_sandbox()
    _run("python3", "-m", "judge", "package", "otter", "sinusoidal-pe", "-o", tmp_path, "--lang", "fr", cwd=REPO)
    entry = json.loads((tmp_path / "otter_config.json").read_text())["plugins"][0]
    assert entry["judge.platforms.otter_plugin.JudgePlugin"]["lang"] == "fr"
    _run(_tool("otter"), "generate", "-t", "tests", "-o", "autograder.zip", "--no-requirements", "--no-environment",
         cwd=tmp_path)
    test = _otter_test(_otter_run(tmp_path, "swapped", ["import numpy as np", SWAPPED]))
    assert test["score"] == 0 and "réponse incorrecte" in test["output"] and "sin_cos_swapped" in test["output"]
    assert not english_sentences(test["output"], SWAPPED), english_sentences(test["output"], SWAPPED)


# -- nbgrader -------------------------------------------------------------------------------------------------
def nbgrader_config(run_cells: bool = False) -> str:
    """A course's nbgrader_config.py with the judge's autograde step (README: "Notebooks")."""
    return ('c = get_config()\nc.CourseDirectory.course_id = "numpy-course"\n'
            "from judge.platforms.nbgrader_autograde import configure\n"
            f"configure(c, problems={str(REPO / 'problems')!r}, run_cells={run_cells})\n")


def _meta(**fields) -> dict:
    return {"nbgrader": {"schema_version": 3, "solution": False, "grade": False, "locked": False, **fields}}


# -- attacks on the tools' grades: the judge's grade comes from outside the learner's kernel ------------------
ATTACKS = sorted((SUBMISSIONS / "wrong_answer").glob("attack_notebook_*.ipynb"))


def _attack_cells(path: Path) -> tuple[str, list[str]]:
    """(the attack notebook's answer cell, its other code cells: the attack)."""
    cells = [c["source"] for c in json.loads(path.read_text())["cells"] if c["cell_type"] == "code"]
    cells = ["".join(c) if isinstance(c, list) else c for c in cells]
    answer = next(c for c in cells if "def sinusoidal_pe" in c and "writefile" not in c and "write_text" not in c)
    return answer, [c for c in cells if c is not answer]


@pytest.mark.parametrize("attack", ATTACKS, ids=lambda p: p.stem)
def test_otter_gives_a_notebook_that_attacks_the_kernel_its_honest_score(otter_assignment, attack):
    """Cells that write a bundle named like the problem (and point JUDGE_PROBLEMS_DIR at it), IPython-only cells
    that do the same, fake judge modules in sys.modules: otter's kernel runs them all, and the wrong answer still
    scores 0, graded by the plugin from the saved notebook."""
    name = attack.stem
    shutil.copyfile(attack, otter_assignment / f"{name}.ipynb")
    out = otter_assignment / f"out-{name}"
    out.mkdir()
    _run(_tool("otter"), "run", "-a", "autograder.zip", "-o", out, f"{name}.ipynb", cwd=otter_assignment)
    test = _otter_test(json.loads((out / "results.json").read_text()))
    assert test["score"] == 0 and test["max_score"] == 1.0, test
    assert "public cases: 0 of 4 passed" in test["output"] and "otter also ran" in test["output"], test["output"]


def _planted_folder(into: Path, answer: str) -> None:
    """A folder named like the problem in the learner's hand-in: the real bundle, the learner's answer as its
    reference."""
    shutil.copytree(REPO / "problems" / "sinusoidal-pe", into / "sinusoidal-pe",
                    ignore=shutil.ignore_patterns("__pycache__"))
    (into / "sinusoidal-pe" / "reference.py").write_text(answer)


@dataclass
class NbgraderClass:
    """One course's class, autograded by the real nbgrader with the judge's autograde step, once per
    ``run_cells``: what the nbgrader tests read."""
    course: Path
    honest: dict[str, float]                 # each student's answer graded by the judge, on 10 points
    scores: dict[bool, dict[str, float]]     # run_cells -> grades.csv's scores
    autograded: dict[bool, Path]             # run_cells -> nbgrader's autograded/ folder of that run


@pytest.fixture(scope="module")
def nbgrader_class(tmp_path_factory, judge) -> NbgraderClass:
    """One assignment, one class, two autogrades: nbgrader's generate, autograde and export take most of their
    time starting up and running kernels, so every nbgrader fact is read from the same two runs over the whole
    class (a right answer, a wrong one, a right one beside a crashing scratch cell, the three attack notebooks and
    a hand-in with a planted bundle folder) instead of one course per test."""
    require_sandbox()
    nbgrader = _tool("nbgrader")
    course = tmp_path_factory.mktemp("nbgrader") / "course"
    (course / "source" / "ps1").mkdir(parents=True)
    solution = f"### BEGIN SOLUTION\n{RIGHT}\n### END SOLUTION"
    grade = 'from judge.platforms.nbgrader import grade_cell\ngrade_cell("sinusoidal-pe", points=10)'
    nbformat, nb = _notebook(["import numpy as np", solution, grade, "assert True  # nbgrader's own test"],
                             [_meta(grade_id="imports", locked=True), _meta(grade_id="answer", solution=True),
                              _meta(grade_id="judge", grade=True, locked=True, points=10),
                              _meta(grade_id="own-test", grade=True, locked=True, points=1)])
    nbformat.write(nb, course / "source" / "ps1" / "ps1.ipynb")
    (course / "nbgrader_config.py").write_text(nbgrader_config())
    _run(nbgrader, "generate_assignment", "ps1", "--force", cwd=course)
    hand_ins: dict[str, tuple[str, list[str]]] = {"alice": (RIGHT, []), "bob": (SWAPPED, []),
                                                  "carol": (RIGHT, [UNRELATED_CRASH]), "mallory-folder": (SWAPPED, [])}
    for attack in ATTACKS:
        hand_ins["mallory-" + attack.stem.removeprefix("attack_notebook_").replace("_", "-")] = _attack_cells(attack)
    honest = {student: 10 * judge.grade(answer).score for student, (answer, _) in hand_ins.items()}
    for student, (answer, extra_cells) in hand_ins.items():
        mine = nbformat.read(course / "release" / "ps1" / "ps1.ipynb", as_version=4)
        mine.cells[2].source = answer
        mine.cells[3:3] = [nbformat.v4.new_code_cell(c) for c in extra_cells]
        folder = course / "submitted" / student / "ps1"
        folder.mkdir(parents=True)
        nbformat.write(mine, folder / "ps1.ipynb")
        if student == "mallory-folder":
            _planted_folder(folder, answer)
    scores, autograded = {}, {}
    for run_cells in (False, True):
        (course / "nbgrader_config.py").write_text(nbgrader_config(run_cells))
        _run(nbgrader, "autograde", "ps1", "--force", cwd=course)
        _run(nbgrader, "export", cwd=course)
        scores[run_cells] = {row["student_id"]: float(row["score"])
                             for row in csv.DictReader((course / "grades.csv").open())}
        autograded[run_cells] = course / f"autograded-run-cells-{run_cells}"
        shutil.copytree(course / "autograded", autograded[run_cells])  # the next run's --force replaces it
    return NbgraderClass(course, honest, scores, autograded)


def _judge_cell_printed(path: Path) -> tuple[str, list]:
    """What the judge's grade cell printed in an autograded notebook, and its outputs."""
    import nbformat

    graded = nbformat.read(path, as_version=4)
    cell = next(c for c in graded.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "judge")
    return "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream"), cell.outputs


def test_nbgrader_autograde_scores_a_class_with_the_judge(nbgrader_class, judge):
    """nbgrader's default autograde (the cells are not run in its kernel): the generated assignment hides the
    solution, a right answer gets the judge's 10 points even beside a scratch cell that crashes, a wrong one the
    judge's partial score, and its grade cell prints the judge's diagnosis (nothing on stderr)."""
    import nbformat

    released = nbformat.read(nbgrader_class.course / "release" / "ps1" / "ps1.ipynb", as_version=4)
    assert "raise NotImplementedError" in released.cells[2].source  # the solution was cut out
    scores = nbgrader_class.scores[False]
    assert scores["alice"] == 10.0 and scores["carol"] == 10.0, scores
    assert 0 < scores["bob"] < 10 and scores["bob"] == pytest.approx(10 * judge.grade(SWAPPED).score, abs=1e-4)
    printed, outputs = _judge_cell_printed(nbgrader_class.autograded[False] / "bob" / "ps1" / "ps1.ipynb")
    assert "sin_cos_swapped" in printed and "public cases: 0 of 4 passed" in printed, printed[:1500]
    assert not [o for o in outputs if o.output_type == "stream" and o.name == "stderr"]


@pytest.mark.parametrize("run_cells", [False, True], ids=["cells-not-run", "cells-run"])
def test_nbgrader_gives_a_notebook_that_attacks_the_kernel_its_honest_score(nbgrader_class, run_cells):
    """The three attack notebooks and a hand-in with a planted bundle folder, autograded by the real nbgrader
    with the judge's autograde step: each gets what its answer earns against the real bundle.  Without running
    the cells in nbgrader's kernel (the default), nbgrader's own test cell is not run (0, said so); with
    ``run_cells=True`` the kernel runs every attack (its files appear in the autograded folder) and the judge's
    grade is unchanged, with a note that the cells also ran unsandboxed."""
    honest = nbgrader_class.honest
    assert all(score < 10 for student, score in honest.items() if student not in ("alice", "carol"))
    assert honest["mallory-folder"] == honest["bob"]
    own_test = 1.0 if run_cells else 0.0
    scores = nbgrader_class.scores[run_cells]
    assert scores == pytest.approx({s: v + own_test for s, v in honest.items()}, abs=1e-4), (run_cells, scores)
    autograded = nbgrader_class.autograded[run_cells]
    printed, _ = _judge_cell_printed(autograded / "mallory-fake-grader-modules" / "ps1" / "ps1.ipynb")
    assert "public cases: 0 of 4 passed" in printed and ("ran this notebook's cells" in printed) == run_cells
    planted = autograded / "mallory-ipython-cells" / "ps1" / "sinusoidal-pe" / "reference.py"
    assert planted.is_file() == run_cells  # the kernel ran the attack only when asked to run cells


def _execute(cells: list[str], folder: Path, **env: str) -> list[str]:
    """Run ``cells`` in a real Jupyter kernel (nbclient from the tools' virtualenv); each code cell's printed text
    and value."""
    nbformat, nb = _notebook(cells)
    path = folder / "run.ipynb"
    nbformat.write(nb, path)
    script = ("import sys, nbformat, nbclient\nnb = nbformat.read(sys.argv[1], as_version=4)\n"
              "nbclient.NotebookClient(nb, timeout=300, allow_errors=True, resources={'metadata': {'path': "
              "sys.argv[2]}}).execute()\nnbformat.write(nb, sys.argv[1])\n")
    done = subprocess.run([str(_tool("python")), "-c", script, str(path), str(folder)], env={**_env(), **env},
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    ran = nbformat.read(path, as_version=4)
    return ["".join(o.get("text", "") or o.get("data", {}).get("text/plain", "") or "\n".join(o.get("traceback", []))
                    for o in c.outputs) for c in ran.cells if c.cell_type == "code"]


def test_in_a_kernel_the_judges_cell_and_test_say_they_are_feedback(tmp_path):
    """Run inside the learner's kernel (a course without the judge's autograde step or otter plugin, or the learner
    at work), grade_cell and otter's test report with a note that the kernel's result is feedback a notebook can
    forge; where the grade is computed outside the kernel, they skip their run and are worth nothing."""
    require_sandbox()
    cells = ["import numpy as np", SWAPPED,
             'from judge.platforms.nbgrader import grade_cell\ngrade_cell("sinusoidal-pe", points=10)',
             'from judge.platforms.otter import assert_accepted\nassert_accepted("sinusoidal-pe")']
    nbgrader_out, otter_out = _execute(cells, tmp_path)[2:]
    assert "public cases: 0 of 4 passed" in nbgrader_out and "feedback a notebook can forge" in nbgrader_out
    assert "AssertionError" in otter_out and "feedback a notebook can forge" in otter_out
    nbgrader_out, otter_out = _execute(cells, tmp_path, JUDGE_GRADED_OUTSIDE_KERNEL="1")[2:]
    assert "graded outside this kernel" in nbgrader_out and nbgrader_out.rstrip().endswith("0.0")
    assert "AssertionError" in otter_out and "graded outside this kernel" in otter_out


def test_the_otter_package_adds_its_plugin_to_an_existing_configuration(tmp_path):
    from judge.errors import JudgeError
    from judge.platforms.otter import write_test_file

    (tmp_path / "otter_config.json").write_text(json.dumps({"show_stdout": True, "plugins": ["other.Plugin"]}))
    write_test_file("sinusoidal-pe", tmp_path, bundle=Path("/srv/a/sinusoidal-pe"))
    write_test_file("rotary-embedding", tmp_path, bundle=Path("/srv/a/rotary-embedding"))
    config = json.loads((tmp_path / "otter_config.json").read_text())
    assert config == {"show_stdout": True, "plugins": ["other.Plugin", {"judge.platforms.otter_plugin.JudgePlugin": {
        "bundles": {"sinusoidal-pe": "/srv/a/sinusoidal-pe", "rotary-embedding": "/srv/a/rotary-embedding"}}}]}
    with pytest.raises(JudgeError, match="absolute"):
        write_test_file("sinusoidal-pe", tmp_path, bundle=Path("problems/sinusoidal-pe"))
