"""A wheel is a complete judge: built from this checkout, installed in a fresh virtualenv with its dependencies
from the machine's package index, and used from an empty folder as a learner, an author and a teacher would.

The wheel and the virtualenv are made once for the module (``installed``, ~1 minute on this 2-core machine:
see the figures it writes to test-artifacts/first-hour/wheel.json); nothing of the checkout is on the path of
the commands it runs, so every problem, template and file comes from the installed package.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.common import REPO, require_sandbox
from tests.support.sources import ROTARY_MINE

ARTIFACTS = REPO / "test-artifacts" / "first-hour"


@dataclass
class Installed:
    venv: Path
    work: Path
    env: dict[str, str]
    figures: dict[str, float]

    def judge(self, *args: str, cwd: Path | None = None, timeout: float = 600) -> subprocess.CompletedProcess:
        """``judge ARGS`` as the installed console script, in ``cwd`` (default: an empty folder)."""
        folder = cwd or self.empty()
        return subprocess.run([str(self.venv / "bin" / "judge"), *args], cwd=folder, env=self.env,
                              capture_output=True, text=True, timeout=timeout)

    def empty(self) -> Path:
        folder = self.work / f"empty-{time.monotonic_ns()}"
        folder.mkdir()
        return folder


def _run(*command: str | Path, **kwargs) -> subprocess.CompletedProcess:
    done = subprocess.run([str(c) for c in command], capture_output=True, text=True, timeout=900, **kwargs)
    assert done.returncode == 0, (command, done.stdout[-3000:], done.stderr[-3000:])
    return done


def _clean_env(**extra: str) -> dict[str, str]:
    """The machine's environment without anything pointing at this checkout."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "JUDGE_PROBLEMS_DIR", "VIRTUAL_ENV")}
    env.update(extra)
    return env


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Installed:
    work = tmp_path_factory.mktemp("wheel")
    figures: dict[str, float] = {}
    started = time.monotonic()
    source = work / "source"  # a copy: the build leaves nothing (build/, *.egg-info) in the checkout
    source.mkdir()
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy2(REPO / name, source / name)
    for folder in ("judge", "problems"):
        shutil.copytree(REPO / folder, source / folder, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    _run(sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", work / "dist", source, env=_clean_env())
    wheel = next((work / "dist").glob("numpy_judge-*.whl"))
    figures["wheel_build_s"] = time.monotonic() - started
    mark = time.monotonic()
    venv = work / "venv"
    _run(sys.executable, "-m", "venv", venv)
    _run(venv / "bin" / "python", "-m", "pip", "install", "-q", wheel, env=_clean_env())
    figures["venv_and_install_s"] = time.monotonic() - mark
    env = _clean_env(PATH=f"{venv / 'bin'}:{os.environ.get('PATH', '')}", JUDGE_CACHE_DIR=str(work / "cache"),
                     HOME=str(work / "home"))
    (work / "home").mkdir()
    where = _run(venv / "bin" / "python", "-c", "import judge; print(judge.__file__)", cwd=work, env=env)
    assert where.stdout.startswith(str(venv)), where.stdout  # the installed copy, not the checkout
    figures["fixture_total_s"] = time.monotonic() - started
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / "wheel.json").write_text(json.dumps(figures, indent=1) + "\n")
    print(f"wheel and virtualenv: {json.dumps({k: round(v, 1) for k, v in figures.items()})}")
    return Installed(venv, work, env, figures)


def test_the_wheel_carries_the_problems_and_lists_where_they_come_from(installed):
    listed = installed.judge("problems")
    assert listed.returncode == 0, listed.stderr
    bundles = next(installed.venv.glob("lib/python3*/site-packages/judge/bundles"))
    assert f"installed with the judge: {bundles}" in listed.stdout
    assert "rotary-embedding" in listed.stdout and "sinusoidal-pe" in listed.stdout
    shown = installed.judge("show", "rotary-embedding")
    assert shown.returncode == 0 and shown.stdout.startswith("# Rotary position embedding"), shown.stderr
    probe = ("from judge.problem.locate import resolve; from judge.problem.private_paths import private_paths; "
             "print(private_paths(resolve('sinusoidal-pe')))")
    hidden = _run(installed.venv / "bin" / "python", "-c", probe, cwd=installed.empty(), env=installed.env)
    assert str(bundles) in hidden.stdout, hidden.stdout  # where Landlock is refused, the run's uid is denied them all


def test_an_installed_judge_grades_a_learners_file_from_an_empty_folder(installed):
    require_sandbox()
    folder = installed.empty()
    (folder / "myfile.py").write_text(ROTARY_MINE)
    graded = installed.judge("grade", "myfile.py", cwd=folder)
    assert graded.returncode == 0, (graded.stdout, graded.stderr)
    assert "\nrotary-embedding: accepted" in "\n" + graded.stdout, graded.stdout


def test_an_author_starts_a_problem_and_verifies_an_installed_one(installed):
    require_sandbox()
    folder = installed.empty()
    made = installed.judge("new", "week1-norms", "--function", "norm2", cwd=folder)
    assert made.returncode == 0, made.stderr
    assert (folder / "problems" / "week1-norms" / "problem.yaml").is_file()
    listed = installed.judge("problems", cwd=folder)
    assert f"./problems: {folder / 'problems'}" in listed.stdout and "week1-norms" in listed.stdout
    examples = folder / "examples"
    (examples / "accepted").mkdir(parents=True)
    (examples / "accepted" / "mine.py").write_text(ROTARY_MINE)
    checked = installed.judge("verify", "rotary-embedding", "--submissions", str(examples), cwd=folder)
    assert "Traceback" not in checked.stderr, checked.stderr
    assert "ok   reference graded as a submission" in checked.stdout, checked.stdout
    assert "ok   accepted/mine.py" in checked.stdout, checked.stdout


def test_every_package_kind_from_an_installed_judge(installed):
    """gradescope, prairielearn, exercism (smoke tests from the teacher's examples), notebook, otter; then the
    judge wheel a package carries installs offline and grades."""
    require_sandbox()
    folder = installed.empty()
    cache = str(installed.work / "wheels")
    examples = folder / "examples"
    for status, source in (("accepted", ROTARY_MINE),
                           ("wrong_answer", ROTARY_MINE.replace("first * s + second * c", "first * c + second * s"))):
        (examples / status).mkdir(parents=True)
        (examples / status / "mine.py").write_text(source)
    started = time.monotonic()
    kinds = {"gradescope": ["-o", "autograder.zip"], "prairielearn": ["-o", "pl"],
             "exercism": ["-o", "runner", "--examples", str(examples)], "notebook": ["-o", "week2"],
             "otter": ["-o", "assignment"]}
    for kind, args in kinds.items():
        made = installed.judge("package", kind, "rotary-embedding", *args, "--wheel-cache", cache, cwd=folder)
        assert made.returncode == 0, (kind, made.stdout, made.stderr[-3000:])
        assert "Traceback" not in made.stderr, made.stderr
        if kind != "otter":
            assert f"judge: package {kind}: " in made.stderr and " done in " in made.stderr, (kind, made.stderr)
    installed.figures["package_all_kinds_s"] = time.monotonic() - started
    (ARTIFACTS / "wheel.json").write_text(json.dumps(installed.figures, indent=1) + "\n")

    with zipfile.ZipFile(folder / "autograder.zip") as zf:
        names = zf.namelist()
    assert "problem/rotary-embedding/reference.py" in names and "setup.sh" in names
    own = [n for n in names if n.startswith("wheels/numpy_judge-")]
    assert len(own) == 1, names
    assert (folder / "pl" / "questions" / "rotary-embedding" / "info.json").is_file()
    assert sorted(p.name for p in (folder / "runner" / "tests").iterdir()) == ["accepted-mine", "wrong-answer-mine"]
    first = json.loads((folder / "week2" / "rotary-embedding.ipynb").read_text())["cells"][0]["source"]
    first = "".join(first) if isinstance(first, list) else first
    assert first.count("# Rotary position embedding") == 1 and "Python file" not in first, first[:300]
    assert (folder / "assignment" / "tests" / "rotary-embedding.py").is_file()

    wheels = folder / "pl" / "grader-image" / "wheels"
    with zipfile.ZipFile(next(wheels.glob("numpy_judge-*.whl"))) as zf:
        inside = zf.namelist()
    assert not [n for n in inside if n.startswith("judge/bundles/")], "a package's judge carries no other bundle"
    offline = installed.work / "offline-venv"
    _run(sys.executable, "-m", "venv", offline)
    _run(offline / "bin" / "python", "-m", "pip", "install", "-q", "--no-index", "--find-links", wheels,
         "numpy-judge", env=_clean_env(PIP_FIND_LINKS="", PIP_EXTRA_INDEX_URL=""))
    (folder / "answer.py").write_text(ROTARY_MINE)
    bundle = folder / "pl" / "grader-image" / "problems" / "rotary-embedding"
    graded = subprocess.run([str(offline / "bin" / "judge"), "grade", "answer.py", "--problem", str(bundle)],
                            cwd=folder, env=installed.env, capture_output=True, text=True, timeout=300)
    assert graded.returncode == 0 and "\nrotary-embedding: accepted" in "\n" + graded.stdout, graded.stdout


def test_the_readmes_first_command_then_judge_grade_myfile(tmp_path):
    """The issue's 'done when': the README's first command, as written, in a fresh virtualenv and a copy of the
    checkout; then, in a folder of their own, the learner types `judge grade myfile.py` for the rotary exercise."""
    require_sandbox()
    first = next(line.strip() for line in (REPO / "README.md").read_text().splitlines()
                 if line.startswith("    python3 -m pip install -e ."))
    checkout = tmp_path / "numpy-judge"
    checkout.mkdir()
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy2(REPO / name, checkout / name)
    for folder in ("judge", "problems", "submissions"):
        shutil.copytree(REPO / folder, checkout / folder, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    venv = tmp_path / "venv"
    _run(sys.executable, "-m", "venv", venv)
    env = _clean_env(PATH=f"{venv / 'bin'}:{os.environ.get('PATH', '')}", VIRTUAL_ENV=str(venv),
                     JUDGE_CACHE_DIR=str(tmp_path / "cache"), PIP_NO_CACHE_DIR="1")
    started = time.monotonic()
    done = subprocess.run(["bash", "-c", first], cwd=checkout, env=env, capture_output=True, text=True, timeout=900)
    took = time.monotonic() - started
    assert done.returncode == 0 and "\nsinusoidal-pe: accepted" in done.stdout, (
        done.stdout[-2000:],
        done.stderr[-2000:],
    )
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / "readme-first-command.json").write_text(json.dumps({"seconds": round(took, 1)}) + "\n")
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "myfile.py").write_text(ROTARY_MINE)
    graded = subprocess.run(["judge", "grade", "myfile.py"], cwd=mine, env=env, capture_output=True, text=True,
                            timeout=300)
    assert graded.returncode == 0 and "\nrotary-embedding: accepted" in "\n" + graded.stdout, graded.stdout
