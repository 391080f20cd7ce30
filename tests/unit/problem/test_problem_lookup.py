"""Where a problem id is looked up: $JUDGE_PROBLEMS_DIR (or --problems-dir) and the installed problems only when
one is set; otherwise ./problems, the current folder, a notebook's folder, then the checkout's problems; a path is
taken as it is; `judge new` writes where the author stands.

Each command runs as its own process in its own folder, as an author or a learner would type it, with the
checkout on PYTHONPATH only (so the installed problems are the checkout's, and a course's are found beside it).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from judge.problem import locate
from tests.support.common import REPO


def _judge(cwd: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    environ = {k: v for k, v in os.environ.items() if k != locate.ENV}
    environ.update(PYTHONPATH=str(REPO), **(env or {}))
    return subprocess.run([sys.executable, "-m", "judge", *args], cwd=cwd, env=environ, capture_output=True,
                          text=True, timeout=120)


def test_judge_new_writes_into_the_course_folder_and_its_problems_are_found_there(tmp_path):
    course = tmp_path / "course"
    course.mkdir()
    made = _judge(course, "new", "week3-softmax", "--function", "softmax")
    assert made.returncode == 0, made.stderr
    assert (course / "problems" / "week3-softmax" / "problem.yaml").is_file()
    assert (course / "submissions" / "week3-softmax" / "accepted").is_dir()
    assert not (REPO / "problems" / "week3-softmax").exists()
    listed = _judge(course, "problems")
    assert listed.returncode == 0, listed.stderr
    ids = listed.stdout.split()
    assert "week3-softmax" in ids and "sinusoidal-pe" in ids  # the course's, and the installed ones after them
    elsewhere = _judge(tmp_path, "problems")
    assert "week3-softmax" not in elsewhere.stdout.split()


def test_the_env_and_the_flag_come_first_and_name_one_folder(tmp_path):
    shelf = tmp_path / "shelf"
    made = _judge(tmp_path, "--problems-dir", str(shelf), "new", "norms")
    assert made.returncode == 0, made.stderr
    assert (shelf / "norms" / "problem.yaml").is_file()
    by_env = _judge(tmp_path, "show", "norms", env={locate.ENV: str(shelf)})
    assert by_env.returncode == 0 and "norms" in by_env.stdout.lower(), by_env.stderr
    by_flag = _judge(tmp_path, "--problems-dir", str(shelf), "show", "norms")
    assert by_flag.returncode == 0, by_flag.stderr
    assert by_flag.stdout == by_env.stdout


def test_a_bundle_beside_the_learner_is_found_by_its_id(tmp_path):
    """A hand-out folder holds the bundle itself beside the learner's files (lookup 3, the current folder)."""
    handout = tmp_path / "handout"
    handout.mkdir()
    _judge(tmp_path, "--problems-dir", str(handout), "new", "dot")
    shown = _judge(handout, "show", "dot")
    assert shown.returncode == 0, shown.stderr
    assert locate.resolve("dot", near=handout) == handout / "dot"


def test_an_unknown_id_names_every_folder_looked_in_without_a_traceback(tmp_path):
    result = _judge(tmp_path, "show", "no-such-problem")
    assert result.returncode != 0
    text = result.stdout + result.stderr
    assert "Traceback" not in text and "no-such-problem" in text
    assert "unknown problem" in text and "sinusoidal-pe" in text  # what it does know
    assert str(tmp_path / "problems") in text and str(REPO / "problems") in text


def test_a_path_is_taken_as_it_is_and_an_id_never_walks_out(tmp_path):
    assert locate.resolve(REPO / "problems" / "sinusoidal-pe") == (REPO / "problems" / "sinusoidal-pe").resolve()
    for bad in ("..", ".", "", "../problems/sinusoidal-pe"):
        try:
            locate.resolve(bad, near=tmp_path)
        except Exception as exc:  # noqa: BLE001 - the type is the point
            assert type(exc).__name__ == "BundleError", (bad, exc)
        else:
            raise AssertionError(f"{bad!r} resolved")


# -- the bundle comes from the grader's configuration, never from the learner's folder ------------------------------
def _plant(folder: Path, reference: str) -> Path:
    """A copy of sinusoidal-pe whose reference is ``reference``, planted in ``folder`` as ``<id>/`` and as
    ``problems/<id>/``, the way a learner's hand-in (or a cell of theirs) would leave it."""
    import shutil

    for target in (folder / "sinusoidal-pe", folder / "problems" / "sinusoidal-pe"):
        shutil.copytree(REPO / "problems" / "sinusoidal-pe", target)
        (target / "reference.py").write_text(reference)
    return folder


def test_a_configured_folder_is_the_only_place_an_id_is_looked_up(tmp_path, monkeypatch):
    """With $JUDGE_PROBLEMS_DIR set, a folder named like the problem where the judge runs (or in its problems/,
    or beside a notebook) is never looked at: the configured one wins, else the installed one."""
    learner = _plant(tmp_path / "learner", "def sinusoidal_pe(max_len, d_model, base=10000.0):\n    return 0\n")
    shelf = tmp_path / "shelf"
    shelf.mkdir()
    monkeypatch.chdir(learner)
    monkeypatch.setenv(locate.ENV, str(shelf))
    assert locate.search_dirs(near=learner) == [shelf, locate.INSTALLED]
    assert locate.resolve("sinusoidal-pe", near=learner) == (REPO / "problems" / "sinusoidal-pe").resolve()
    # the path form is the grader's own choice and is taken as it is
    assert locate.resolve("./sinusoidal-pe") == (learner / "sinusoidal-pe").resolve()
    monkeypatch.delenv(locate.ENV)  # an author at the keyboard: their ./problems comes first
    assert locate.resolve("sinusoidal-pe") == (learner / "problems" / "sinusoidal-pe").resolve()


def test_judge_grade_with_problems_dir_ignores_a_planted_bundle_in_the_working_folder(tmp_path):
    """`judge --problems-dir REAL grade wrong.py` run in a folder that holds a bundle named like the problem whose
    reference is the wrong answer itself: the wrong answer is graded against the real bundle."""
    from tests.support.common import require_sandbox

    require_sandbox()
    wrong = (REPO / "submissions" / "sinusoidal-pe" / "wrong_answer" / "sin_cos_swapped.py").read_text()
    learner = _plant(tmp_path / "learner", wrong)
    (learner / "wrong.py").write_text(wrong)
    real = REPO / "problems"
    for args, env in ((("--problems-dir", str(real), "grade", "wrong.py"), None),
                      (("grade", "wrong.py", "--problem", "sinusoidal-pe"), {locate.ENV: str(real)})):
        result = _judge(learner, *args, "--format", "json", env=env)
        assert result.returncode == 1, (args, result.stdout[-2000:], result.stderr[-2000:])
        import json

        verdict = json.loads(result.stdout)
        assert verdict["status"] == "wrong_answer", verdict["status"]
        from judge.problem.loader import load_problem

        assert verdict["problem_digest"] == load_problem(real / "sinusoidal-pe").digest


def test_the_packaged_runners_name_their_bundle_by_an_absolute_path():
    """Gradescope, PrairieLearn and Exercism run the grader with the learner's files around it; each names the
    bundle by the absolute folder its image holds it in, a path the lookup takes as it is."""
    from judge.platforms import exercism, gradescope, prairielearn

    assert gradescope.HOME.startswith("/") and '--problem "$HOME_DIR/problems/__PROBLEM__"' in gradescope.RUN_AUTOGRADER
    assert exercism.RUNNER.startswith("/") and "--problems __RUNNER__/problems" in exercism.RUN_SH
    assert (
        prairielearn.ENTRYPOINT[0].startswith("/") and "--problem" not in prairielearn.ENTRYPOINT
    )  # /grade/tests/problem
    assert locate.is_path(Path("/grade") / "tests" / "problem") and locate.is_path("/opt/test-runner/problems/x")
    assert not locate.is_path("sinusoidal-pe")
