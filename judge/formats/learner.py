"""What a learner may see of a verdict, under a feedback policy: the one function every learner-facing door uses.

The learner page, ``check()``, the packaged runners (Gradescope, PrairieLearn, Exercism, otter, nbgrader) and the
local ``judge grade --format`` exports all render :func:`learner_view`; teachers and the platform API keep the
verdict itself.  Public cases are never cut.  Of hidden cases, by level (:class:`FeedbackLevel`):

- ``full``: the verdict unchanged;
- ``diagnosis``: status, time, the share of wrong values, the exception's class, the failure pattern and the named
  mistake; never a message (an exception's text is the learner's own and may print the arguments), a shape, a
  value, a size or what the call printed;
- ``status``: the status alone; mistakes, patterns and property checks keep only what public cases show;
- ``score``: hidden cases leave ``cases``; :attr:`Verdict.shown` says how many there were and how many passed
  (their weight is in the score, so platforms can add one row for them).

Below ``full``, hidden cases are named "hidden case K of N" unless the policy shows their ids: authors write ids
that carry the arguments (``table-odd-33``).  Printed text comes from loading and public cases only.
"""

from __future__ import annotations

import builtins
import re
from datetime import datetime

from judge.feedback import LearnerShown, MessageRef, TimeFeedback
from judge.i18n import messages as m
from judge.i18n.catalog import render, render_all
from judge.i18n.localize import first_failing
from judge.problem.feedback_policy import FeedbackLevel, FeedbackPolicy
from judge.verdict import CapturedOutput, CaseResult, Status, Verdict

_EXCEPTION = re.compile(r"^(?:while loading your file: )?([A-Za-z_][A-Za-z0-9_.]{0,80})\b")
#: Exception classes a hidden case may name: Python's own and numpy's.  A class the learner defined is never
#: named: its name is the learner's text (``type(f"shape_{n}_{d}", (Exception,), {})`` would print a hidden
#: case's arguments into the feedback).
_NAMEABLE = frozenset(
    [name for name, value in vars(builtins).items() if isinstance(value, type) and issubclass(value, BaseException)]
    + ["numpy.linalg.LinAlgError", "numpy.exceptions.AxisError", "numpy.AxisError",
       "numpy.core._exceptions._ArrayMemoryError", "numpy.exceptions.DTypePromotionError"])
_WORDS = {
    "wrong_answer": m.STATUS_WRONG_ANSWER,
    "runtime_error": m.STATUS_RAISED,
    "time_limit_exceeded": m.STATUS_TIME,
    "memory_limit_exceeded": m.STATUS_MEMORY,
    "skipped": m.STATUS_SKIPPED_LONG,
    "internal_error": m.STATUS_INTERNAL,
}


def hidden_label(k: int, n: int) -> str:
    """The anonymous name of the ``k``-th (1-based, in case order) of ``n`` hidden cases."""
    return f"hidden case {k} of {n}"


def _hidden_message(case: CaseResult, level: FeedbackLevel) -> MessageRef:
    known = _WORDS.get(case.status.value, m.STATUS_WORDS.get(case.status.value, m.STATUS_INTERNAL))
    words: MessageRef = known()
    if level is FeedbackLevel.STATUS:
        return words
    if case.status is Status.RUNTIME_ERROR:
        match = _EXCEPTION.match(case.message)
        if match and match.group(1) in _NAMEABLE:
            words = m.RAISED_CLASS(exception=match.group(1))
    facts = case.facts
    if facts is not None and facts.mismatched and facts.total:  # a share, not counts: counts tell the sizes
        words = m.SHARE_OUT(words=words, share=max(0.01, facts.mismatched / facts.total))  # at least 1%
    return words


def _hidden_case(case: CaseResult, name: str, level: FeedbackLevel) -> CaseResult:
    # no shapes, dtypes or sizes: a hidden case's output shape gives its arguments away (max_len, d_model, ...);
    # its message's ids are made anew from what is shown (the original's would say what this one withholds)
    said = _hidden_message(case, level)
    return CaseResult(id=name, function=case.function, visibility="hidden", status=case.status,
                      time_ms=case.time_ms if level is FeedbackLevel.DIAGNOSIS else None,
                      message=render(said, "en"), said=[said], weight=case.weight,
                      input_changed=case.input_changed if level is FeedbackLevel.DIAGNOSIS else [])


def _printed(verdict: Verdict, stream: str) -> CapturedOutput:
    """What loading and public cases printed; marked truncated when some output could not be split per call."""
    pieces: list[str] = []
    truncated = unknown = False
    if verdict.load_output is not None:
        pieces.append(getattr(verdict.load_output, stream))
        truncated |= verdict.load_output.truncated
    elif verdict.cases:
        unknown = True
    for case in verdict.cases:
        if case.visibility != "public":
            continue
        if case.output is None:
            unknown = unknown or case.status is not Status.SKIPPED
            continue
        pieces.append(getattr(case.output, stream))
        truncated |= case.output.truncated
    text = "".join(pieces)
    if not verdict.cases and verdict.load_output is None:   # nothing ran per call: what the run printed is its own
        return getattr(verdict, stream)
    return CapturedOutput(text=text, bytes=len(text.encode()), truncated=truncated or unknown)


def learner_view(verdict: Verdict, policy: FeedbackPolicy | None = None, now: datetime | None = None,
                 probes_back_at: datetime | None = None) -> Verdict:
    """``verdict`` as a learner may see it under ``policy`` (default: the bundle default) at ``now``.

    ``probes_back_at``: set when the policy's probing limit withholds this submission's hidden feedback (the
    caller counts the learner's submissions: :meth:`ProbeLimit.back_at`); the view is then cut to the score and
    public cases, and says when hidden feedback comes back.  From the due date on the limit no longer applies."""
    policy = policy or FeedbackPolicy()
    level = policy.level(now)
    limited = probes_back_at is not None and not policy.past_due(now) and level is not FeedbackLevel.SCORE
    if limited:
        level = FeedbackLevel.SCORE
    hidden = [c for c in verdict.cases if c.visibility != "public"]
    more_after = policy.due.isoformat() if policy.due is not None and level is not policy.after_due else None
    shown = LearnerShown(level=level.value, anonymous=not policy.hidden_ids and level is not FeedbackLevel.FULL,
                         hidden_cases=len(hidden), more_after=more_after, probes_exceeded=limited,
                         probes_back_at=probes_back_at.isoformat() if limited and probes_back_at else None)
    if level is FeedbackLevel.FULL:
        return verdict.model_copy(update={"shown": shown})
    names = {c.id: (c.id if policy.hidden_ids else hidden_label(k, len(hidden)))
             for k, c in enumerate(hidden, start=1)}
    public_ids = {c.id for c in verdict.cases if c.visibility == "public"}
    rich = level is FeedbackLevel.DIAGNOSIS     # hidden cases' patterns and mistakes may be shown

    def rename(ids: list[str]) -> list[str]:
        return [names.get(i, i) for i in ids if i in public_ids or (rich and i in names)]

    cases = []
    for case in verdict.cases:
        if case.visibility == "public":
            cases.append(case)
        elif level is not FeedbackLevel.SCORE:
            cases.append(_hidden_case(case, names[case.id], level))
    if level is FeedbackLevel.SCORE:
        passed = [c for c in hidden if c.status is Status.ACCEPTED]
        shown = shown.model_copy(update={"withheld_cases": len(hidden), "withheld_passed": len(passed),
                                         "withheld_weight": sum(c.weight for c in hidden),
                                         "withheld_passed_weight": sum(c.weight for c in passed)})
    diagnoses = [d.model_copy(update={"cases": rename(d.cases)}) for d in verdict.diagnoses]
    diagnoses = [d for d in diagnoses if d.cases or d.kind != "mistake"]
    patterns = [p.model_copy(update={"cases": rename(p.cases)}) for p in verdict.patterns
                if rich or all(i in public_ids for i in p.cases)]
    checks = [c.model_copy(update={"failed_cases": rename(c.failed_cases)}) for c in verdict.checks]
    checks = [c for c in checks if c.holds or c.failed_cases]
    recovered = verdict.recovered
    if recovered is not None:
        recovered = recovered.model_copy(update={"cases": rename(recovered.cases)})
        if not rich and not recovered.cases:
            recovered = None
    public_failed = any(c.status is not Status.ACCEPTED for c in verdict.cases if c.visibility == "public")
    view = verdict.model_copy(update={
        "cases": cases, "diagnoses": diagnoses, "patterns": patterns, "checks": checks, "recovered": recovered,
        "time_feedback": _time_feedback(verdict.time_feedback, names, level),
        "counterexample": verdict.counterexample if rich or public_failed else None,
        "stdout": _printed(verdict, "stdout"), "stderr": _printed(verdict, "stderr"), "load_output": None,
        "shown": shown,
    })
    view.message, view.said = _message(view, verdict)
    return view


def _time_feedback(feedback: TimeFeedback | None, names: dict[str, str],
                   level: FeedbackLevel) -> TimeFeedback | None:
    """A hidden call that ran out of time is named, never sized (its size is its arguments)."""
    if feedback is None or feedback.case not in names:
        return feedback
    if level is FeedbackLevel.SCORE:
        return None
    finished = [f.model_copy(update={"case": names.get(f.case, f.case)}) for f in feedback.finished]
    head = (m.ALL_FINISHED_RIGHT(count=len(finished)) if feedback.all_finished_correct
            else m.SOME_FINISHED_WRONG(wrong=sum(not f.correct for f in finished), count=len(finished))
            if finished else m.NONE_FINISHED())
    said = [m.HIDDEN_RAN_OUT(head=head, case=names[feedback.case])]
    return TimeFeedback(case=names[feedback.case], size="", finished=finished,
                        all_finished_correct=feedback.all_finished_correct, message=render_all(said, "en"),
                        said=said)


def _message(view: Verdict, verdict: Verdict) -> tuple[str, list[MessageRef]]:
    """The verdict's message (and its ids), rebuilt from the first failing case the learner sees, on the same
    terms; a view the probing limit cut says so, and when hidden feedback comes back."""
    message, said = _first_failing(view, verdict)
    if view.shown is not None and view.shown.probes_exceeded:
        line = probes_line(view.shown.probes_back_at)
        return render_all([message, line], "en"), [*said, line]
    return message, said


def _first_failing(view: Verdict, verdict: Verdict) -> tuple[str, list[MessageRef]]:
    if not verdict.cases:
        return verdict.message, verdict.said
    failing = next((c for c in view.cases if c.status is not Status.ACCEPTED), None)
    if failing is not None:
        label = failing.id if failing.visibility == "public" else (
            failing.id if failing.id.startswith("hidden case ") else f"{failing.id} (hidden)")
        return f"first failing case {label}: {failing.message}", [first_failing(failing)]
    if view.shown is not None and view.shown.withheld_passed < view.shown.withheld_cases:
        said = [m.PUBLIC_PASSED_HIDDEN_NOT()]
        return render_all(said, "en"), said
    return verdict.message, verdict.said


def probes_line(back_at: str | None) -> MessageRef:
    """The line a view cut by the probing limit ends with: why, and when hidden feedback comes back."""
    return m.PROBES_WITHHELD_UNTIL(back_at=back_at) if back_at else m.PROBES_WITHHELD()
