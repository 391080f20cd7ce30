"""nbgrader: the judge's test cell, ``grade_cell``, which prints the judge's report and is worth a share of points.

nbgrader scores an autograded test cell by its output: an error (or anything on stderr) is 0, a number as the
cell's value is that many points (partial credit), anything else is full marks.  ``grade_cell`` as the cell's
last line prints the judge's report (the diagnosis, never a hidden case's values) and is worth
``verdict.score x points``.  Run in a kernel, it grades the cells the kernel has run, the way ``check()`` does
(:mod:`judge.notebook_check`): the learner's functions run in the judge's sandbox, and an unrelated broken cell
costs nothing.

In the kernel it is **feedback**, for the learner while they work: every cell of the learner's ran in that
kernel before it, and one can plant a bundle, change ``JUDGE_PROBLEMS_DIR`` or replace this module, so what it
prints there says so.  The course's grade comes from :class:`judge.platforms.nbgrader_autograde.JudgeExecute`,
which grades the same cell from the saved notebook in nbgrader's own process and replaces its outputs; when it
has done so it tells the kernel (``JUDGE_GRADED_OUTSIDE_KERNEL``) and this cell skips its own run, worth 0 if its
output were ever kept.

In the test cell (metadata: grade: true, points: N)::

    from judge.platforms.nbgrader import grade_cell
    grade_cell("sinusoidal-pe", points=N)
"""

from __future__ import annotations

import logging
import os

from judge.formats.text import render_text
from judge.platforms.notebook_grading import GRADED_OUTSIDE_ENV

IN_KERNEL_NOTE = ("note: checked inside this notebook's kernel, which is feedback a notebook can forge; the "
                  "course's grade comes from nbgrader's autograde step (JudgeExecute), outside the kernel.")


def grade_cell(problem: str, points: float) -> float:
    """Print the report and return the points earned (nbgrader reads the cell's value as partial credit)."""
    if os.environ.get(GRADED_OUTSIDE_ENV):
        print("numpy-judge: graded outside this kernel, from the saved notebook")
        return 0.0
    from judge.notebook_check import grade_here

    logging.getLogger("judge").addHandler(logging.NullHandler())  # stderr would zero the cell in nbgrader
    verdict, line = grade_here(problem)
    report = render_text(verdict).splitlines()
    print("\n".join(report[:1] + [line] + report[1:] + [IN_KERNEL_NOTE]))
    return round(verdict.score * points, 6)
