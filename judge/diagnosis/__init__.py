"""Explaining a failed verdict: named mistakes, the recovered formula, failure patterns, time feedback.

Runs in the judge's process only, after the comparisons, on copies of the failing outputs (see
:class:`judge.grading.slots.Observed`).  Three sources of candidate explanations:

* generic recognisers (:mod:`judge.diagnosis.generic`): one registered function each, driven by facts;
* the bundle's bank (:mod:`judge.diagnosis.bank`): small wrong implementations, run and compared;
* the bundle's family of plausible answers (:mod:`judge.diagnosis.recover`): the learner's output fitted
  component by component; a combination of banked mistakes becomes one combined name ("a+b").

A candidate is *the explanation* (``Diagnosis.explains``) only when it reproduces every failing case it was
checked on and breaks no passing one; the others "partly explain N of M cases".  Confidence is that share.
Hidden cases are named by id only: evidence quotes public cases alone.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from judge.diagnosis import generic  # noqa: F401 - registers the generic recognisers
from judge.diagnosis.bank import bank_candidates, property_checks
from judge.diagnosis.base import KIND_RANK, REGISTRY, Candidate, Context
from judge.diagnosis.patterns import failure_patterns
from judge.diagnosis.recover import recover
from judge.diagnosis.timing import time_feedback
from judge.errors import JudgeError
from judge.grading.prepare import PreparedProblem
from judge.grading.slots import Observed
from judge.verdict import CaseResult, Diagnosis, PropertyCheck, Verdict

if TYPE_CHECKING:
    from judge.verdict import Recovery

log = logging.getLogger(__name__)
MIN_CONFIDENCE = 0.2
MAX_DIAGNOSES = 5


def generic_candidates(ctx: Context) -> list[Candidate]:
    out = []
    for rec in REGISTRY.values():
        if rec.scope == "submission":
            explained, checked = (list(ctx.failing) if rec.fn(ctx) else []), len(ctx.failing)
        else:
            answers = [(i, rec.fn(ctx, i)) for i in ctx.failing]
            explained = [i for i, a in answers if a]
            checked = sum(a is not None for _, a in answers)
        if explained:
            out.append(Candidate(rec.id, rec.kind, explained, checked))
    return out


def _evidence(cases: list[CaseResult], explained: list[int]) -> str:
    for i in explained:
        c = cases[i]
        if c.visibility != "public":
            continue
        f = c.facts
        if f is not None and f.worst_where and f.expected_at_worst is not None and f.got_at_worst is not None:
            return (f"e.g. case {c.id}: at {f.worst_where} expected {f.expected_at_worst:.7g}, "
                    f"got {f.got_at_worst:.7g}")
        if c.message:
            return f"e.g. case {c.id}: {c.message.splitlines()[0][:160]}"
    return ""


def _message(ctx: Context, cand: Candidate) -> str:
    if cand.message:
        return cand.message
    default = REGISTRY[cand.id].message if cand.id in REGISTRY else cand.id
    return ctx.bank.message(cand.id, default) if ctx.bank else default


def rank(ctx: Context, candidates: list[Candidate]) -> list[Diagnosis]:
    """Full explanations first (most cases, then attack > mistake > generic, then fewest combined mistakes),
    then partial ones by confidence; one entry per id."""
    order = {m.id: k for k, m in enumerate(ctx.bank.spec.mistakes)} if ctx.bank else {}
    candidates = sorted(candidates, key=lambda c: (not c.explains, -round(c.confidence, 6), KIND_RANK[c.kind],
                                                   -len(c.explained), c.components, order.get(c.id, len(order))))
    out: list[Diagnosis] = []
    seen: set[str] = set()
    for c in candidates:
        if c.id in seen or c.confidence < MIN_CONFIDENCE or len(out) >= MAX_DIAGNOSES:
            continue
        seen.add(c.id)
        out.append(Diagnosis(id=c.id, message=_message(ctx, c), confidence=round(c.confidence, 3),
                             cases=[ctx.cases[i].id for i in c.explained], checked=c.checked,
                             evidence=_evidence(ctx.cases, c.explained), kind=c.kind, explains=c.explains))
    return out


def diagnose(prepared: PreparedProblem, cases: list[CaseResult], observed: dict[int, Observed], source: str = "",
             printed: str = "") -> tuple[list[Diagnosis], list[PropertyCheck]]:
    """Known mistakes that explain the wrong answers (the explanation first) and properties of the output."""
    diagnoses, checks, _ = _diagnose(Context(prepared, cases, observed, source, printed))
    return diagnoses, checks


def _diagnose(ctx: Context) -> tuple[list[Diagnosis], list[PropertyCheck], Recovery | None]:
    if not ctx.failing:
        return [], [], None
    candidates = generic_candidates(ctx) + bank_candidates(ctx)
    # The formula fit finds combinations and mistakes outside the bank; when one name already explains
    # everything it would only repeat it, at a cost.
    if not any(c.explains for c in candidates):
        recovery, combined = recover(ctx)
        candidates += combined
    else:
        recovery = None
    return rank(ctx, candidates), property_checks(ctx), recovery


def explain(verdict: Verdict, prepared: PreparedProblem, observed: dict[int, Observed], source: str = "") -> None:
    """Fill the verdict's explanations: diagnoses, checks, recovered formula, patterns, time feedback."""
    ctx = Context(prepared, verdict.cases, observed, source, verdict.stdout.text + "\n" + verdict.stderr.text)
    verdict.diagnoses, verdict.checks, verdict.recovered = _diagnose(ctx)
    verdict.patterns = failure_patterns(prepared, verdict.cases)
    verdict.time_feedback = time_feedback(prepared, verdict.cases)


def explain_safely(verdict: Verdict, prepared: PreparedProblem, observed: dict[int, Observed],
                   source: str = "") -> None:
    """:func:`explain`, where a bug in a recogniser costs the feedback, never the verdict.

    A broken bank (BundleError) still raises: ``judge verify`` and the grader report it."""
    try:
        explain(verdict, prepared, observed, source)
    except JudgeError:
        raise
    except Exception:  # noqa: BLE001
        log.exception("diagnosis failed for %s", prepared.bundle.id)


__all__ = ["diagnose", "explain", "explain_safely", "Candidate", "Context", "REGISTRY"]
