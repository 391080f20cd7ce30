"""Time feedback for time_limit_exceeded: which call ran out, its size, how the finished calls went."""

from __future__ import annotations

from judge.feedback import FinishedCall, TimeFeedback
from judge.grading.prepare import PreparedProblem
from judge.grading.terms import Terms, plural
from judge.i18n import messages as m
from judge.i18n.catalog import render_all, word
from judge.verdict import CaseResult, Status


def _terms(prepared: PreparedProblem, index: int) -> Terms:
    case = prepared.cases[index]
    return Terms(prepared.bundle.spec.function(case.spec.function), case.expected.shape, case.parts)


def time_feedback(prepared: PreparedProblem, cases: list[CaseResult]) -> TimeFeedback | None:
    slow = next((k for k, c in enumerate(cases) if c.status is Status.TIME_LIMIT_EXCEEDED), None)
    if slow is None:
        return None
    finished = [FinishedCall(case=c.id, time_ms=c.time_ms, correct=c.status is Status.ACCEPTED)
                for c in cases[:slow] if c.status in (Status.ACCEPTED, Status.WRONG_ANSWER)]
    right = bool(finished) and all(f.correct for f in finished)
    terms = _terms(prepared, slow)
    size = terms.size_text()
    case = cases[slow]
    slowest = max((f.time_ms or 0.0 for f in finished), default=0.0)
    function = prepared.bundle.spec.function(case.function)
    # the axis's name is the bundle's word: its plural in English ("queries"), its translation elsewhere
    axis = function.axes[0].name if function.axes else ""
    loop = m.LOOP_OVER(axes=word(axis, "label", plural(axis))) if axis else m.LOOP()
    head = (m.ALL_FINISHED_RIGHT(count=len(finished)) if right
            else m.SOME_FINISHED_WRONG(wrong=sum(not f.correct for f in finished), count=len(finished))
            if finished else m.NONE_FINISHED())
    said = [m.TOO_SLOW(head=head, function=case.function, size=terms.size_said(), slowest=float(slowest), loop=loop,
                       case=m.CASE_HIDDEN(case=case.id) if case.visibility == "hidden" else case.id)]
    return TimeFeedback(case=case.id, size=size, finished=finished, all_finished_correct=right,
                        message=render_all(said, "en"), said=said)
