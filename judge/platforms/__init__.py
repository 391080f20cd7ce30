"""Packaging the judge for the course platforms that run graders in their own containers.

``judge package gradescope|prairielearn|exercism PROBLEM -o PATH`` writes what
each platform expects (:mod:`judge.platforms.gradescope`,
:mod:`judge.platforms.prairielearn`, :mod:`judge.platforms.exercism`); the
entry point each package runs inside the platform's container goes through
:func:`judge.platforms.runner.run_packaged`, one path from verdict to the
platform's results file (rendered by :mod:`judge.formats`).
"""

from __future__ import annotations

PLATFORMS = ("gradescope", "prairielearn", "exercism")
