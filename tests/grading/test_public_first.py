"""Public results first: the public cases run, and are shown, before the hidden ones, in a run that was given no
hidden case's arguments (judge.grading.phases).

The leak it closes: a public case's printed text, exception message and load-time output are shown to the
learner in full, and a file can find every call of its run (the harness's request is an object in its own
process).  ``runtime_error/attack_print_hidden_args_in_public_case.py`` writes every call's arguments as
``A:<args>`` tokens while loading, during a public case, and in a public case's exception: what a learner sees
(``check()``, ``judge grade --format gradescope``) holds the public cases' tokens and no hidden one's.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

from judge.problem.loader import load_problem
from tests.support.common import REPO, require_sandbox
from tests.support.hidden_args import ATTACK, found_in, tokens
from tests.support.sources import SLOW_HIDDEN


@pytest.fixture(autouse=True)
def _needs_the_sandbox():
    require_sandbox()


def judge_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "judge.cli", *args], cwd=REPO, capture_output=True, timeout=120)


def test_what_a_learner_is_shown_holds_no_hidden_case_s_arguments(tmp_path):
    """check() and the Gradescope export, for a file that prints every call's arguments from a public case."""
    from judge.notebook_check import grade_here

    public, hidden = tokens("public"), tokens("hidden")
    assert len(hidden) >= 15 and not public & hidden
    checked, _ = grade_here("sinusoidal-pe", source=ATTACK)
    shown = checked.model_dump_json()
    assert checked.status.value == "runtime_error"
    assert all(t in shown for t in public), "the channel works: the public cases' own arguments are shown"
    assert not found_in(hidden, shown), "a hidden case's arguments reached check()'s verdict"
    assert checked.phase == "final"

    exported = judge_cli("grade", str(ATTACK), "--problem", "sinusoidal-pe", "--format", "gradescope")
    assert exported.returncode == 1, exported.stderr.decode()[-2000:]
    text = exported.stdout.decode()
    assert json.loads(text)["tests"] and "A:3x4" in text
    assert not found_in(hidden, text), "a hidden case's arguments reached the Gradescope export"


def test_judge_grade_prints_the_public_cases_before_the_hidden_ones_end(tmp_path):
    """The first lines come while the hidden cases still run (they pause ~3 s here), then the full report."""
    slow = tmp_path / "slow_hidden.py"
    slow.write_text(SLOW_HIDDEN % {"pause": 0.8})
    errors = tmp_path / "stderr"
    with errors.open("w") as err_file:
        process = subprocess.Popen([sys.executable, "-m", "judge.cli", "grade", str(slow), "-p", "sinusoidal-pe"],
                                   cwd=REPO, stdout=subprocess.PIPE, stderr=err_file, text=True)
    try:
        assert process.stdout is not None
        first = process.stdout.readline()
        seen_at = time.monotonic()
        still_running = process.poll() is None
        rest = process.stdout.read()  # what readline buffered, then the rest (communicate would skip the buffer)
        process.wait(timeout=120)
        ended_at = time.monotonic()
    finally:
        process.kill()
    err = errors.read_text()
    assert first.startswith("sinusoidal-pe: public cases accepted"), (first, rest, err[-2000:])
    assert still_running and ended_at - seen_at > 2.0, "the public lines came before the hidden cases ended"
    head, _, report = rest.partition("\n\n")
    public_rows = [line.split()[0] for line in head.splitlines()[1:]]
    assert public_rows == _ids("public"), head
    assert report.startswith("sinusoidal-pe: accepted  score 1.000"), report[:300]
    assert process.returncode == 0


def _ids(visibility: str) -> list[str]:
    """The bundle's cases of ``visibility``, in case order."""
    return [c.id for c in load_problem("sinusoidal-pe").cases.cases if c.visibility == visibility]
