"""The author's report ``judge verify`` prints after its pass/fail rows: adequacy (kill matrix), tolerance
margins, time-limit calibration and statement consistency, as text or as one JSON object for CI."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from judge.authoring.adequacy import adequacy_findings, matrix_json, matrix_text
from judge.authoring.counterexamples import Smallest, counterexample_report, rows_text
from judge.authoring.findings import Finding
from judge.authoring.hidden_ids import telling_ids
from judge.authoring.killers import Killer, example_killer, mistake_killers
from judge.authoring.margins import CaseMargin, case_margins, margins_text, rounding_floor
from judge.authoring.statement import ShownExample, check_statement
from judge.authoring.timelimits import Calibration, calibrate, calibration_text
from judge.grading.prepare import PreparedProblem
from judge.verdict import Verdict

if TYPE_CHECKING:
    from judge.engine import Judge


@dataclass
class GradedExample:
    """One example submission as verify graded it: its folder (the status it must get) and its verdict."""

    name: str  # status/file.py
    folder: str
    verdict: Verdict


@dataclass
class AuthorReport:
    killers: list[Killer]
    margins: list[CaseMargin]
    calibration: Calibration | None
    shown: list[ShownExample]
    findings: list[Finding] = field(default_factory=list)
    cases: list = field(default_factory=list)
    smallest: list[Smallest] = field(default_factory=list)  #: the counterexample search's rows

    @property
    def errors(self) -> int:
        return sum(f.level == "error" for f in self.findings)

    def text(self) -> list[str]:
        lines = ["", "== adequacy: which cases catch each wrong implementation (X caught, . passes) =="]
        lines += matrix_text(self.cases, self.killers)
        lines += ["", "== tolerance margins =="] + margins_text(self.margins)
        lines += ["", "== time limits (problemtools-style calibration) =="]
        lines += calibration_text(self.calibration) if self.calibration else ["(no accepted example)"]
        lines += ["", "== statement examples vs the reference =="]
        lines += [f"{'ok  ' if s.ok else 'FAIL'} {s.case:24} {s.values} values {s.detail}" for s in self.shown] \
            or ["(no numeric example blocks in the statement)"]
        lines += ["", "== counterexamples: the smallest input that catches each wrong implementation =="]
        lines += rows_text(self.smallest)
        lines += ["", "== findings =="] + ([f.line() for f in self.findings] or ["none"])
        return lines

    def as_dict(self) -> dict:
        return {"adequacy": matrix_json(self.cases, self.killers),
                "tolerance": [m.as_dict() for m in self.margins],
                "time_limits": self.calibration.as_dict() if self.calibration else None,
                "statement": [s.as_dict() for s in self.shown],
                "counterexamples": [row.as_dict() for row in self.smallest],
                "findings": [f.as_dict() for f in self.findings]}


def author_report(prepared: PreparedProblem, examples: list[GradedExample], multiplier: float) -> AuthorReport:
    cases = [c.spec for c in prepared.cases]
    wrong = [example_killer(e.name, e.verdict) for e in examples if e.folder == "wrong_answer"]
    killers = wrong + mistake_killers(prepared)
    accepted = {e.name: e.verdict for e in examples if e.folder == "accepted" and e.verdict.accepted}
    ratios = {name: {c.id: c.facts.tolerance_ratio for c in v.cases
                     if c.facts is not None and c.facts.tolerance_ratio is not None}
              for name, v in accepted.items()}
    floors = {c.spec.id: rounding_floor(c.output_dtypes, c.tolerance) for c in prepared.cases}
    margins, tolerance = case_margins(cases, prepared.bundle.spec.tolerance, ratios, killers, floors)
    calibration, timing = calibrate(prepared.bundle.spec.limits, accepted, multiplier)
    shown, statement = check_statement(prepared)
    findings = adequacy_findings(cases, killers) + tolerance + timing + statement + telling_ids(cases)
    return AuthorReport(killers, margins, calibration, shown, findings, cases)


def add_counterexamples(report: AuthorReport, judge: Judge, prepared: PreparedProblem,
                        examples: list[GradedExample], sources: dict[str, str]) -> None:
    """The counterexample section (:mod:`judge.authoring.counterexamples`): its rows and findings."""
    rows, findings = counterexample_report(judge, prepared, examples, report.killers, sources)
    report.smallest = rows
    report.findings += findings


def finite_json(value: Any) -> Any:
    """The report as strict JSON: infinite ratios (a non-numeric failure) become the string "inf"."""
    if isinstance(value, float) and not math.isfinite(value):
        return "inf" if value > 0 else "-inf" if value < 0 else "nan"
    if isinstance(value, dict):
        return {k: finite_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite_json(v) for v in value]
    return value
