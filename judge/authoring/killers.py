"""The kill matrix: which cases catch which wrong implementation.

Wrong implementations are the bundle's wrong-answer examples (graded in the sandbox: a case catches one
when its status is not accepted) and the bank's mistakes with an implementation (run in the judge's
process on each case's inputs, like the reference: a case catches one when the output falls outside the
case's tolerance, has the wrong shape or dtype, or the call raises where it must not / returns where it
must raise)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from judge.grading.compare import tolerance_ratio
from judge.grading.prepare import PreparedCase, PreparedProblem
from judge.problem.expected import raises_expected
from judge.sandbox import NotAnOutput, pack
from judge.verdict import Status, Verdict

INF = float("inf")


@dataclass
class Killer:
    """One wrong implementation and, per case id, whether the case catches it (None: does not apply)."""

    name: str
    kind: Literal["example", "mistake"]
    caught: dict[str, bool | None] = field(default_factory=dict)
    ratios: dict[str, float] = field(default_factory=dict)  # tolerance ratio where the output was comparable

    def caught_by(self) -> list[str]:
        return [c for c, hit in self.caught.items() if hit]


def example_killer(name: str, verdict: Verdict) -> Killer:
    killer = Killer(name, "example")
    for c in verdict.cases:
        killer.caught[c.id] = c.status is not Status.ACCEPTED and c.status is not Status.SKIPPED
        if c.facts is not None and c.facts.tolerance_ratio is not None:
            killer.ratios[c.id] = c.facts.tolerance_ratio
        elif c.status is not Status.ACCEPTED:
            killer.ratios[c.id] = INF
    return killer


def judge_output(case: PreparedCase, out: object) -> tuple[bool, float]:
    """(caught, tolerance ratio) of a bank implementation's return value on a case that must return (packed as
    the harness packs a learner's: :func:`judge.sandbox.boundary.outputs.pack`)."""
    try:
        packed = pack(out, case.returns)
    except NotAnOutput:
        return True, INF
    values = packed.values
    if values.shape != case.expected.shape or packed.part_shapes != case.parts:
        return True, INF
    ratio = tolerance_ratio(values, case.expected, case.tolerance)
    dtypes = [d for _, d in packed.parts] if packed.parts else [str(values.dtype)]
    return ratio > 1 or any(d not in case.output_dtypes for d in dtypes), ratio


def mistake_killers(prepared: PreparedProblem) -> list[Killer]:
    bank = prepared.bundle.bank
    if bank is None:
        return []
    killers = []
    for mistake in bank.spec.mistakes:
        if not mistake.implements:
            continue  # a generic recogniser: nothing to run
        killer = Killer(mistake.id, "mistake")
        for i, case in enumerate(prepared.cases):
            attr = mistake.implements.get(case.spec.function)
            if attr is None:
                killer.caught[case.spec.id] = None
                continue
            try:
                with np.errstate(all="ignore"):  # a mistake that overflows is caught by its NaN, quietly
                    out = getattr(bank.module, attr)(**prepared.inputs.cases[i].values)
            except Exception as exc:  # noqa: BLE001 - a mistake that raises is caught unless the case wants it
                killer.caught[case.spec.id] = not (case.spec.raises and raises_expected(exc, case.spec.raises))
                continue
            if case.spec.raises:
                killer.caught[case.spec.id] = True
                continue
            killer.caught[case.spec.id], killer.ratios[case.spec.id] = judge_output(case, out)
        killers.append(killer)
    return killers
