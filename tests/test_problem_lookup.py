"""Where a problem id is looked up: $JUDGE_PROBLEMS_DIR (or --problems-dir), ./problems, the current folder, a
notebook's folder, then the checkout's problems; `judge new` writes where the author stands.

Each command runs as its own process in its own folder, as an author or a learner would type it, with the
checkout on PYTHONPATH only (so the installed problems are the checkout's, and a course's are found beside it).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from judge.problem import locate
from tests.conftest import REPO


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
