"""Phased grading: the public cases in a run of their own, then the hidden ones, merged in case order.

Why two runs: a learner sees everything a public case's call prints or raises, and what loading the file
printed; a file can read every argument its run was given (the inputs file is mapped in its process).  In one
run of every case, a public call could print a hidden case's arguments.  The public run
(:meth:`PreparedProblem.phases`) is given the public cases' arguments only, so nothing it shows can hold a
hidden one, and its verdict can be shown as soon as it is judged (``phase="public"``).  The hidden run starts
fresh (a result buffer of zeros, a new process) and what it printed stays in the teacher's verdict: the
learner's view shows printed text of loading and of public cases only, and here both come from the public run.

The merged verdict is the one-run verdict's equal: its cases in the bundle's order, the status of the first
that did not pass, the score over all cases; the two runs together have the bundle's CPU and wall time
(:func:`remaining`), and a process that died in the public run skips the hidden cases (:func:`ended`), as one
run would have.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:  # the verdict models are imported when first needed: a cold start imports them during its run
    from judge.grading.prepare import PreparedProblem
    from judge.grading.slots import JudgedRun, Observed
    from judge.problem.models import Limits
    from judge.sandbox import RunLimits, RunReport
    from judge.verdict import CapturedOutput, Resources, Verdict

#: The least time a hidden run is given (less proves nothing; its cases then run out of time, as in one run).
SHORTEST_SECONDS = 0.05
#: Bytes of printed text the merged verdict keeps per stream (as a one-run verdict: judge.engine.OUTPUT_KEEP).
OUTPUT_KEEP = 16 << 10


class PhaseRun(NamedTuple):
    """One run of a submission, judged: its verdict, and (None when the sandbox failed) what judging it gave."""

    verdict: Verdict
    judged: JudgedRun | None = None
    report: RunReport | None = None


def ended(judged: JudgedRun) -> bool:
    """The public run's process died during a call: one run would have skipped every later case."""
    return any(span is None for span in judged.spans.values())


def skipped(hidden: PreparedProblem) -> PhaseRun:
    """The hidden phase of a submission whose process died in the public one: every case skipped."""
    from judge.grading.slots import JudgedRun
    from judge.verdict import CaseResult, Status, Verdict

    cases = [CaseResult(id=c.spec.id, function=c.spec.function, visibility=c.spec.visibility, status=Status.SKIPPED,
                        weight=c.spec.weight, expected_shape=list(c.expected.shape),
                        message="not run: an earlier case ended the process") for c in hidden.cases]
    verdict = Verdict(status=Status.SKIPPED, score=0.0, problem=hidden.bundle.id, cases=cases, judge_version="",
                      numpy_version="", python_version="")
    return PhaseRun(verdict, JudgedRun(cases, None), None)


def remaining(limits: Limits, first: RunReport) -> RunLimits:
    """The hidden run's limits: the bundle's, less the CPU and wall time the public run used."""
    from judge.sandbox import RunLimits

    cpu_used = (first.cpu_ns or (first.user_ns + first.sys_ns)) / 1e9
    return RunLimits(cpu_seconds=max(SHORTEST_SECONDS, limits.cpu_seconds - cpu_used),
                     wall_seconds=max(SHORTEST_SECONDS, limits.wall_seconds - first.wall_ns / 1e9),
                     memory_bytes=limits.memory_mib << 20, max_processes=limits.processes,
                     output_bytes=limits.output_kib << 10)


def merge(prepared: PreparedProblem, first: PhaseRun, second: PhaseRun,
          make: Callable[..., Verdict]) -> tuple[Verdict, dict[int, Observed]]:
    """The final verdict of both phases (``make``: the judge's verdict maker), without its diagnosis, and what
    diagnosis needs of every case by its index in ``prepared``.  Printed text and load output: the public run's
    load output; both runs' streams, one after the other, for the teacher."""
    from judge.verdict import CaseResult, Status

    phases = prepared.phases()
    assert phases is not None and first.judged is not None and second.judged is not None
    public, hidden = phases
    slots: list[CaseResult | None] = [None] * len(prepared.cases)
    observed: dict[int, Observed] = {}
    for phase, run in ((public, first), (hidden, second)):
        assert run.judged is not None
        for k, case in enumerate(run.verdict.cases):
            slots[phase.indices[k]] = case
        for k, seen in run.judged.observed.items():
            observed[phase.indices[k]] = seen
    cases = [c for c in slots if c is not None]
    failing = next((c for c in cases if c.status is not Status.ACCEPTED), None)
    total = sum(c.weight for c in cases) or 1.0
    score = sum(c.weight for c in cases if c.status is Status.ACCEPTED) / total
    message, said = "", []
    if failing is not None:
        from judge.i18n.localize import first_failing

        said = [first_failing(failing)]  # as one run's verdict says it: rendered in the learner's language
        label = failing.id if failing.visibility == "public" else f"{failing.id} (hidden)"
        message = f"first failing case {label}: {failing.message}"
    one, two = first.verdict, second.verdict
    fields: dict[str, Any] = dict(
        score=round(score, 6), cases=cases, message=message, said=said, isolation=one.isolation,
        stdout=_joined(one.stdout, two.stdout), stderr=_joined(one.stderr, two.stderr),
        resources=_resources(one.resources, two.resources, second.report is None),
        load_output=one.load_output, pictures=one.pictures, counterexample=one.counterexample)
    ordered = dict(sorted(observed.items()))  # in case order, as one run's: diagnosis takes examples in this order
    return make(prepared.bundle, failing.status if failing else Status.ACCEPTED, **fields), ordered


def _joined(one: CapturedOutput, two: CapturedOutput) -> CapturedOutput:
    from judge.verdict import CapturedOutput

    text = one.text + two.text
    kept = text[:OUTPUT_KEEP]
    return CapturedOutput(text=kept, bytes=one.bytes + two.bytes,
                          truncated=one.truncated or two.truncated or len(kept) < len(text))


def _resources(one: Resources, two: Resources, second_skipped: bool) -> Resources:
    """Both runs' records: times added, the larger peak, and how the last process that ran ended."""
    if second_skipped:
        return one
    from judge.verdict import Resources

    peaks = [p for p in (one.memory_peak_bytes, two.memory_peak_bytes) if p is not None]
    return Resources(
        wall_ms=_sum(one.wall_ms, two.wall_ms), cpu_ms=_sum(one.cpu_ms, two.cpu_ms),
        memory_peak_bytes=max(peaks) if peaks else None, oom_kills=one.oom_kills + two.oom_kills,
        forks_refused=one.forks_refused + two.forks_refused, exit_code=two.exit_code, signal=two.signal,
        killed_for=two.killed_for)


def _sum(a: float | None, b: float | None) -> float | None:
    return None if a is None and b is None else (a or 0.0) + (b or 0.0)


__all__ = ["PhaseRun", "ended", "merge", "remaining", "skipped"]
