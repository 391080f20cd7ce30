"""otter-grader: a test file in otter's exception format whose one test grades with the judge.

otter runs a notebook's tests inside the learner's kernel (``grader.check`` while they work, ``otter run`` or
otter's Gradescope autograder when grading), on the kernel's globals.  The test this module writes ignores those
globals: it grades the cells the kernel has run, the way ``check()`` does (:mod:`judge.notebook_check`), so the
learner's functions run in the judge's sandbox, and a failure's message is the judge's diagnosis instead of a
traceback of the test.  Where the learner works, the bundle beside the notebook is the hand-out (public cases; the
message says how many hidden cases run on submission); where otter grades, ``JUDGE_PROBLEMS_DIR`` or the installed
problems hold the full bundle.

The test is all or nothing, as an otter test case is: otter gives a test's points only when it raises nothing.
"""

from __future__ import annotations

import logging
from pathlib import Path

from judge.verdict import Status

TEMPLATE = '''"""{problem}: graded by numpy-judge in its sandbox (written by `judge package otter`; README: "Notebooks")."""

from otter.test_files import test_case

OK_FORMAT = False

name = {name!r}
points = {points!r}


@test_case(points={points!r}, hidden=False, success_message="numpy-judge: accepted")
def numpy_judge(env):
    from judge.platforms.otter import assert_accepted

    assert_accepted({problem!r})
'''


def test_file(problem: str, name: str, points: float) -> str:
    """The text of ``tests/<name>.py`` for otter."""
    return TEMPLATE.format(problem=problem, name=name, points=points)


def write_test_file(problem: str, out: Path, name: str | None = None, points: float = 1.0) -> Path:
    path = out / "tests" / f"{name or problem}.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(test_file(problem, name or problem, points))
    return path


def assert_accepted(problem: str) -> None:
    """Raise AssertionError carrying the judge's report unless the kernel's functions are accepted."""
    from judge.formats.text import render_text
    from judge.notebook_check import grade_here

    logging.getLogger("judge").addHandler(logging.NullHandler())  # nothing on stderr: it is not the learner's
    verdict, line = grade_here(problem)
    if verdict.status is not Status.ACCEPTED:
        report = render_text(verdict).splitlines()
        raise AssertionError("\n".join(report[:1] + [line] + report[1:]))
    print(f"numpy-judge: {verdict.problem}: {line}")
