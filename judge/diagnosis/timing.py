"""Time feedback for time_limit_exceeded: which call ran out, its size, how the finished calls went."""

from __future__ import annotations

from judge.feedback import FinishedCall, TimeFeedback
from judge.grading.prepare import PreparedProblem
from judge.verdict import CaseResult, Status


def _size(prepared: PreparedProblem, index: int) -> str:
    case = prepared.cases[index]
    shape = case.expected.shape
    function = prepared.bundle.spec.function(case.spec.function)
    named = function.axes[max(0, len(function.axes) - len(shape)):]
    lead = len(shape) - len(named)
    parts = [f"{n} {function.leading_axes}" for n in shape[:lead]]
    parts += [f"{n} {a.name}{'s' if n != 1 else ''}" for n, a in zip(shape[lead:], named)]
    return " x ".join(parts) if parts else "x".join(map(str, shape)) or "scalar"


def time_feedback(prepared: PreparedProblem, cases: list[CaseResult]) -> TimeFeedback | None:
    slow = next((k for k, c in enumerate(cases) if c.status is Status.TIME_LIMIT_EXCEEDED), None)
    if slow is None:
        return None
    finished = [FinishedCall(case=c.id, time_ms=c.time_ms, correct=c.status is Status.ACCEPTED)
                for c in cases[:slow] if c.status in (Status.ACCEPTED, Status.WRONG_ANSWER)]
    right = bool(finished) and all(f.correct for f in finished)
    size = _size(prepared, slow)
    case = cases[slow]
    slowest = max((f.time_ms or 0.0 for f in finished), default=0.0)
    function = prepared.bundle.spec.function(case.function)
    loop = f"a Python loop over the {function.axes[0].name}s" if function.axes else "a Python loop"
    head = (f"correct so far: all {len(finished)} finished calls were right" if right
            else f"{sum(not f.correct for f in finished)} of {len(finished)} finished calls were wrong"
            if finished else "no call finished")
    message = (f"{head}; too slow on {case.function} for the {size} output (case {case.id}"
               f"{', hidden' if case.visibility == 'hidden' else ''}); the finished calls took at most "
               f"{slowest:.1f} ms each. Look for {loop} and replace it with array operations (vectorise it).")
    return TimeFeedback(case=case.id, size=size, finished=finished, all_finished_correct=right, message=message)
