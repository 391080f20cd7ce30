"""Tolerance margins per case: how far correct outputs sit inside the tolerance and wrong ones outside.

Errors are in tolerance units, r = max |got - expected| / (atol + rtol*|expected|): r <= 1 passes.
Per case: the largest r among accepted examples (their distance to failing is 1/r) and the smallest r
among wrong implementations that are measurably wrong there (r above the accepted ones' noise).  A correct
formulation that fails is an error; so is a measurably wrong one that passes (the tolerance is too loose to
tell it from the right answer); a margin under 100x on either side is a warning."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from judge.authoring.findings import Finding
from judge.authoring.killers import Killer
from judge.problem.models import CaseSpec

if TYPE_CHECKING:
    from judge.problem.models import Tolerance

SECTION = "tolerance"
MARGIN = 100.0


@dataclass
class CaseMargin:
    case: str
    atol: float
    rtol: float
    accepted_worst: float | None  # largest ratio among accepted examples
    accepted_by: str | None
    wrong_best: float | None  # smallest ratio among measurably wrong implementations
    wrong_by: str | None

    def as_dict(self) -> dict:
        return self.__dict__.copy()


#: Rounding errors of this many units in the last place of a lower precision's result are noise, right or wrong.
NOISE_ULPS = 16
#: A difference under this share of the tolerance is rounding, not a wrong answer: float64 formulas of one value
#: (log-sum-exp vs the log of a softmax, at logits near 1e4) differ by ~1e-13 relative, 1e-4 of a 1e-9 tolerance.
ROUNDING = 1e-3


def rounding_floor(output_dtypes: list[str], tol) -> float:  # noqa: ANN001 - a Tolerance
    """The tolerance ratio a case's rounding alone may reach: where a float32 (or float16) result is accepted,
    any implementation, right or wrong, differs from the float64 reference by a few of its ulps, so a wrong one
    that stays within that much is not "measurably wrong" there (0 where only float64 is accepted)."""
    import numpy as np

    lower = [np.finfo(d).eps for d in output_dtypes if d in ("float32", "float16")]
    if not lower or tol.rtol <= 0:
        return 0.0
    return NOISE_ULPS * max(lower) / tol.rtol


def case_margins(
    cases: list[CaseSpec],
    default_tol: Tolerance,
    accepted: dict[str, dict[str, float]],
    killers: list[Killer],
    floors: dict[str, float] | None = None,
) -> tuple[list[CaseMargin], list[Finding]]:
    """``accepted``: example name -> case id -> ratio; ``killers``: wrong examples and bank mistakes; ``floors``:
    case id -> the ratio its rounding alone may reach (:func:`rounding_floor`)."""
    rows, out = [], []
    for c in cases:
        if c.raises:
            continue
        tol = c.tolerance or default_tol
        acc = [(r[c.id], name) for name, r in accepted.items() if c.id in r]
        worst, worst_by = max(acc) if acc else (None, None)
        noise = max(worst or 0.0, ROUNDING, (floors or {}).get(c.id, 0.0))
        wrong = [(k.ratios[c.id], k.name) for k in killers if c.id in k.ratios and k.ratios[c.id] > noise]
        best, best_by = min(wrong) if wrong else (None, None)
        rows.append(CaseMargin(c.id, tol.atol, tol.rtol, worst, worst_by, best, best_by))
        if worst is not None and worst > 1:
            out.append(Finding("error", SECTION, f"case {c.id}: accepted example {worst_by} is outside the "
                                                 f"tolerance (error {worst:.3g} x tolerance)"))
        elif worst is not None and worst * MARGIN > 1:
            out.append(Finding("warning", SECTION, f"case {c.id}: accepted example {worst_by} uses "
                                                   f"{worst:.2g} of the tolerance (margin {1 / worst:.3g}x < 100x)"))
        if best is not None and best <= 1:
            out.append(Finding("error", SECTION, f"case {c.id}: wrong {best_by} passes within the tolerance "
                                                 f"(error {best:.3g} x tolerance, above correct outputs' noise)"))
        elif best is not None and math.isfinite(best) and best < MARGIN:
            out.append(Finding("warning", SECTION, f"case {c.id}: wrong {best_by} fails by only {best:.3g}x the "
                                                   "tolerance (< 100x)"))
    return rows, out


def _fmt(r: float | None) -> str:
    if r is None:
        return "-"
    return "inf" if math.isinf(r) else f"{r:.2g}"


def margins_text(rows: list[CaseMargin]) -> list[str]:
    lines = [f"{'case':24} {'tolerance':>18} {'accepted max':>13} {'wrong min':>10}  (in tolerance units; "
             "<= 1 passes)"]
    for m in rows:
        lines.append(f"{m.case:24} {f'{m.atol:g}+{m.rtol:g}|e|':>18} {_fmt(m.accepted_worst):>13} "
                     f"{_fmt(m.wrong_best):>10}  {m.wrong_by or ''}")
    return lines
