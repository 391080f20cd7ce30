"""Time limits calibrated the way Kattis problemtools does it, from the slowest accepted example.

problemtools (verifyproblem) runs every accepted submission, takes the slowest, and sets the time limit to
``time_multiplier`` x that time (legacy default 5), then checks with ``time_safety_margin`` (2) that no
accepted run comes near the limit and that time-limit examples stay over it.  Here: the CPU limit of the
whole submission, the wall limit of one call and the total wall limit get ``multiplier`` x the slowest
accepted example's own figure, rounded up, with floors that keep start-up noise out.  A bundle limit more
than 4x above or below the calibrated one is flagged; an accepted example using more than 1/margin of a
bundle limit is flagged (it would flip to time-limit-exceeded on a slower grader)."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path

from judge.authoring.findings import Finding
from judge.problem.models import Limits
from judge.verdict import Verdict

SECTION = "time limits"
DEFAULT_MULTIPLIER = 5.0
SAFETY_MARGIN = 2.0
FAR = 4.0
FLOORS = {"cpu_seconds": 2.0, "wall_seconds": 4.0, "case_wall_seconds": 1.0}


@dataclass
class Calibration:
    multiplier: float
    slowest: dict[str, float]  # limit name -> slowest accepted figure, seconds
    slowest_by: dict[str, str]
    suggested: dict[str, float]
    current: dict[str, float]

    def as_dict(self) -> dict:
        return self.__dict__.copy()


def _round_up(seconds: float) -> float:
    step = 0.5 if seconds < 10 else 1.0 if seconds < 60 else 10.0
    return math.ceil(seconds / step) * step


def _figures(verdict: Verdict) -> dict[str, float]:
    calls = [c.time_ms or 0.0 for c in verdict.cases]
    return {"cpu_seconds": (verdict.resources.cpu_ms or 0.0) / 1e3,
            "wall_seconds": (verdict.resources.wall_ms or 0.0) / 1e3,
            "case_wall_seconds": max(calls, default=0.0) / 1e3}


def calibrate(limits: Limits, accepted: dict[str, Verdict], multiplier: float) -> tuple[Calibration | None,
                                                                                        list[Finding]]:
    if not accepted:
        return None, [Finding("warning", SECTION, "no accepted example: time limits cannot be calibrated")]
    slowest: dict[str, float] = {}
    by: dict[str, str] = {}
    for name, verdict in accepted.items():
        for key, value in _figures(verdict).items():
            if value >= slowest.get(key, -1.0):
                slowest[key], by[key] = value, name
    suggested = {k: _round_up(max(FLOORS[k], multiplier * v)) for k, v in slowest.items()}
    suggested["wall_seconds"] = max(suggested["wall_seconds"], suggested["cpu_seconds"])
    current = {k: float(getattr(limits, k)) for k in suggested}
    out = []
    for key, limit in current.items():
        if slowest[key] * SAFETY_MARGIN > limit:
            out.append(Finding("warning", SECTION, f"{key}: accepted example {by[key]} takes {slowest[key]:.2f} s, "
                                                   f"more than 1/{SAFETY_MARGIN:g} of the limit {limit:g} s"))
        ratio = limit / suggested[key]
        if ratio > FAR or ratio < 1 / FAR:
            out.append(Finding("warning", SECTION, f"{key} is {limit:g} s, {ratio:.2g}x the calibrated "
                                                   f"{suggested[key]:g} s ({multiplier:g} x {slowest[key]:.2f} s of "
                                                   f"{by[key]}); `judge verify --calibrate` writes it"))
    return Calibration(multiplier, slowest, by, suggested, current), out


def calibration_text(cal: Calibration) -> list[str]:
    lines = [f"{'limit':18} {'slowest accepted':>17} {'x' + format(cal.multiplier, 'g'):>6} {'suggested':>10} "
             f"{'bundle':>8}"]
    for key in ("cpu_seconds", "wall_seconds", "case_wall_seconds"):
        lines.append(f"{key:18} {cal.slowest[key]:>15.3f} s {'':>6} {cal.suggested[key]:>8g} s "
                     f"{cal.current[key]:>6g} s   ({cal.slowest_by[key]})")
    return lines


_LIMIT_LINE = r"^(\s+{key}:\s*)([0-9.eE+-]+)"


def write_calibration(problem_yaml: Path, suggested: dict[str, float]) -> list[str]:
    """Rewrite the limit lines of problem.yaml in place (comments and layout kept); the keys changed."""
    text = problem_yaml.read_text(encoding="utf-8")
    changed = []
    for key, value in suggested.items():
        pattern = re.compile(_LIMIT_LINE.format(key=re.escape(key)), re.MULTILINE)
        shown = f"{value:g}"
        text, n = pattern.subn(lambda m, shown=shown: m.group(1) + shown, text, count=1)  # type: ignore[misc]  # mypy cannot type a lambda with a default
        if n:
            changed.append(f"{key}: {shown}")
    problem_yaml.write_text(text, encoding="utf-8")
    return changed
