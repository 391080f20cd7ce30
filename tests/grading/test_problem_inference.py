"""`judge grade FILE` without --problem grades FILE against the problem whose functions it defines (an author's
own problems included); none or several fit: one clear error naming each candidate and --problem.  The group's
options (--problems-dir) are taken after the subcommand too.

Each command runs as its own process in its own folder, as a learner or author types it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from judge.problem import locate
from judge.problem.infer import UnknownProblem, infer_problem
from tests.support.common import REPO, require_sandbox
from tests.support.sources import ROTARY_MINE

#: A learner's rotary exercise in their own words (no example file of the repository): correct.

PE_MINE = '''\
import numpy as np

def sinusoidal_pe(max_len, d_model, base=10000.0):
    return np.zeros((max_len, d_model))

def add_positional_encoding(x, base=10000.0):
    return x + sinusoidal_pe(x.shape[-2], x.shape[-1], base)
'''


def _judge(cwd: Path, *args: str, env: dict[str, str] | None = None, stdin: str | None = None):
    environ = {k: v for k, v in os.environ.items() if k != locate.ENV}
    environ.update(PYTHONPATH=str(REPO), **(env or {}))
    return subprocess.run([sys.executable, "-m", "judge", *args], cwd=cwd, env=environ, capture_output=True,
                          text=True, timeout=180, input=stdin)


def _notebook(source: str) -> str:
    cells = [{"cell_type": "markdown", "metadata": {}, "source": "# my RoPE"},
             {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": 1, "source": source},
             {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": 2,
              "source": "print(apply_rope(np.ones((2, 4))))"}]
    return json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": cells})


def test_the_problem_is_the_one_whose_functions_the_file_defines(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv(locate.ENV, raising=False)
    assert infer_problem(ROTARY_MINE).name == "rotary-embedding"
    assert infer_problem(PE_MINE.encode()).name == "sinusoidal-pe"
    assert infer_problem(_notebook(ROTARY_MINE)).name == "rotary-embedding"
    broken = ROTARY_MINE.replace("return out", "return out)")  # a syntax error still says which exercise it is
    assert infer_problem(broken).name == "rotary-embedding"


def test_none_or_several_fits_name_every_candidate_and_the_option(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv(locate.ENV, raising=False)
    with pytest.raises(UnknownProblem) as none:
        infer_problem("import numpy as np\n\ndef logsumexp(x):\n    return x\n", "mine.py")
    text = str(none.value)
    assert "mine.py" in text and "logsumexp" in text and "--problem" in text
    assert "rotary-embedding needs apply_rope(), rope_angles()" in text
    assert "sinusoidal-pe needs sinusoidal_pe(), add_positional_encoding()" in text
    with pytest.raises(UnknownProblem) as both:
        infer_problem(PE_MINE + ROTARY_MINE.replace("import numpy as np", ""), "both.py")
    assert "2 problems" in str(both.value) and "--problem" in str(both.value)


def test_an_authors_own_problems_are_candidates_and_the_widest_fit_wins(tmp_path):
    """A course's problems in ./problems: `judge new` writes them, `judge grade` finds them by the functions."""
    for pid, function in (("norms", "norm2"), ("normalise", "norm2")):
        made = _judge(tmp_path, "new", pid, "--function", function)
        assert made.returncode == 0, made.stderr
    spec_file = tmp_path / "problems" / "normalise" / "problem.yaml"  # normalise needs norm2 and normalise
    spec = yaml.safe_load(spec_file.read_text())
    spec["functions"].append({**spec["functions"][0], "name": "normalise"})
    spec_file.write_text(yaml.safe_dump(spec, sort_keys=False))
    os.chdir(tmp_path)
    try:
        assert infer_problem("def norm2(x):\n    return x\n") == tmp_path / "problems" / "norms"
        both = "def norm2(x):\n    return x\n\ndef normalise(x):\n    return x / norm2(x)\n"
        assert infer_problem(both) == tmp_path / "problems" / "normalise"
    finally:
        os.chdir(REPO)


def test_judge_grade_without_problem_says_which_problems_it_knows(tmp_path):
    (tmp_path / "mine.py").write_text("import numpy as np\n\ndef logsumexp(x):\n    return np.exp(x)\n")
    result = _judge(tmp_path, "grade", "mine.py")
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    assert "mine.py defines the functions of no known problem" in result.stderr
    assert "--problem" in result.stderr and "rotary-embedding needs" in result.stderr


def test_problems_dir_is_taken_after_the_subcommand_too(tmp_path):
    shelf = tmp_path / "shelf"
    made = _judge(tmp_path, "new", "dots", "--function", "dot", "--problems-dir", str(shelf))
    assert made.returncode == 0, made.stderr
    before = _judge(tmp_path, "--problems-dir", str(shelf), "show", "dots")
    after = _judge(tmp_path, "show", "dots", "--problems-dir", str(shelf))
    assert before.returncode == 0 and after.returncode == 0, (before.stderr, after.stderr)
    assert before.stdout == after.stdout
    listed = _judge(tmp_path, "problems", "--problems-dir", str(shelf))
    assert listed.returncode == 0 and "dots" in listed.stdout, listed.stderr
    for command in (["grade", "x.py"], ["verify", "dots"], ["case", "add", "dots"], ["package", "notebook", "dots"]):
        helped = _judge(tmp_path, *command, "--problems-dir", str(shelf), "--help")
        assert helped.returncode == 0 and "--problems-dir" in helped.stdout, (command, helped.stderr)


def test_a_learner_types_judge_grade_myfile_for_the_rotary_exercise(tmp_path):
    """The issue's 'done when', with the checkout on the path: a file in the learner's own words, no --problem."""
    require_sandbox()
    (tmp_path / "myfile.py").write_text(ROTARY_MINE)
    result = _judge(tmp_path, "grade", "myfile.py")
    assert result.returncode == 0, (result.stdout, result.stderr)
    assert "\nrotary-embedding: accepted" in "\n" + result.stdout, result.stdout
    wrong = _judge(
        tmp_path, "grade", "-", stdin=ROTARY_MINE.replace("first * s + second * c", "first * c + second * s")
    )
    assert wrong.returncode == 1 and "\nrotary-embedding: wrong answer" in "\n" + wrong.stdout, wrong.stdout


def test_a_file_half_way_through_one_problem_is_graded_against_it(tmp_path, monkeypatch):
    """Only some of one problem's functions, none of another's: that problem (its verdict names what is missing)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv(locate.ENV, raising=False)
    half = ROTARY_MINE.split("\n\ndef apply_rope")[0]
    assert infer_problem(half).name == "rotary-embedding"
    with pytest.raises(UnknownProblem):  # one function of each: no guess
        infer_problem(half + "\n\ndef sinusoidal_pe(max_len, d_model, base=10000.0):\n    return None\n")
