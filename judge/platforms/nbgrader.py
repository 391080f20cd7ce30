"""nbgrader: a helper for an autograded test cell that grades with the judge and gives partial credit.

nbgrader runs a course's notebooks in a kernel and scores an autograded test cell by its output: an error (or
anything on stderr) is 0, a number as the cell's value is that many points (partial credit), anything else is
full marks.  ``grade_cell`` as the cell's last line prints the judge's report (the diagnosis, never a hidden
case's values) and is worth ``verdict.score x points``.  It grades the cells the kernel has run, the way
``check()`` does (:mod:`judge.notebook_check`): the learner's functions run in the judge's sandbox, not in the
kernel where nbgrader's own tests would run them, and an unrelated broken cell costs nothing.

In the test cell (metadata: grade: true, points: N)::

    from judge.platforms.nbgrader import grade_cell
    grade_cell("sinusoidal-pe", points=N)
"""

from __future__ import annotations

import logging

from judge.formats.text import render_text


def grade_cell(problem: str, points: float) -> float:
    """Print the report and return the points earned (nbgrader reads the cell's value as partial credit)."""
    from judge.notebook_check import grade_here

    logging.getLogger("judge").addHandler(logging.NullHandler())  # stderr would zero the cell in nbgrader
    verdict, line = grade_here(problem)
    report = render_text(verdict).splitlines()
    print("\n".join(report[:1] + [line] + report[1:]))
    return round(verdict.score * points, 6)
