"""JUDGE_TIME_SCALE: every time limit multiplied on a machine known to be slow (a test setting).

The cgroup v2 tier of CI runs the judge in an emulated VM where code is ~20x slower
than on the machines bundles are written for; a bundle's 4 s per call would turn
every correct file into a time limit there.  Rather than editing bundles, the
operator (or .ci/cgroup2-vm) sets ``JUDGE_TIME_SCALE=20``: the loader multiplies
cpu_seconds, wall_seconds and every case_wall_seconds by it, so everything that
enforces or reports a time limit sees one consistent, scaled value.  Unset, empty
or 1 changes nothing; memory, process and output limits are never scaled.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from judge.errors import JudgeError

if TYPE_CHECKING:
    from judge.problem.models import CasesFile, ProblemSpec

ENV = "JUDGE_TIME_SCALE"


def time_scale() -> float:
    """The factor from the environment (>= 1); a bad value is a JudgeError naming the variable."""
    raw = os.environ.get(ENV, "").strip()
    if not raw:
        return 1.0
    try:
        value = float(raw)
    except ValueError:
        raise JudgeError(f"environment variable {ENV}={raw!r} is not a number") from None
    if not 1.0 <= value <= 1000.0:
        raise JudgeError(f"environment variable {ENV}={raw!r} must be between 1 and 1000")
    return value


def scale_times(spec: ProblemSpec, cases: CasesFile) -> tuple[ProblemSpec, CasesFile]:
    """``spec`` and ``cases`` (a bundle's ProblemSpec and CasesFile) with their time limits scaled."""
    factor = time_scale()
    if factor == 1.0:
        return spec, cases
    lim = spec.limits
    spec = spec.model_copy(update={"limits": lim.model_copy(update={
        "cpu_seconds": lim.cpu_seconds * factor, "wall_seconds": lim.wall_seconds * factor,
        "case_wall_seconds": lim.case_wall_seconds * factor})})
    scaled = [c.model_copy(update={"case_wall_seconds": c.case_wall_seconds * factor})
              if c.case_wall_seconds is not None else c for c in cases.cases]
    return spec, cases.model_copy(update={"cases": scaled})
