"""Statement consistency: the examples printed in statement.md equal what the reference computes.

Convention (the skeleton's statement.md says it): the statement's code blocks that hold only numbers
(brackets, commas, digits) are the public cases that return an array, in cases.yaml order.  Each shown
number must equal the reference's value to the decimals shown."""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from judge.authoring.findings import Finding
from judge.grading.prepare import PreparedProblem

SECTION = "statement"
_BLOCK = re.compile(r"^```[^\n]*\n(.*?)^```", re.MULTILINE | re.DOTALL)
_NUMERIC = re.compile(r"^[\s\[\](),0-9eE.+-]+$")
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


@dataclass
class ShownExample:
    case: str
    values: int
    ok: bool
    detail: str

    def as_dict(self) -> dict:
        return self.__dict__.copy()


def numeric_blocks(statement: str) -> list[str]:
    return [b for b in _BLOCK.findall(statement) if b.strip() and _NUMERIC.match(b) and _NUMBER.search(b)]


def _decimals(token: str) -> int:
    mantissa = token.lower().split("e")[0]
    return len(mantissa.split(".")[1]) if "." in mantissa else 0


def check_statement(prepared: PreparedProblem) -> tuple[list[ShownExample], list[Finding]]:
    blocks = numeric_blocks(prepared.bundle.statement)
    cases = [c for c in prepared.cases if c.spec.visibility == "public" and not c.spec.raises]
    shown, out = [], []
    for block, case in zip(blocks, cases):
        tokens = _NUMBER.findall(block)
        expected = np.asarray(case.expected, dtype=np.float64).reshape(-1)
        if len(tokens) != expected.size:
            shown.append(ShownExample(case.spec.id, len(tokens), False,
                                      f"shows {len(tokens)} numbers, the reference returns {expected.size}"))
            continue
        bad = [(i, t, expected[i]) for i, t in enumerate(tokens)
               if abs(float(t) - expected[i]) > 0.5 * 10.0 ** -_decimals(t) * (1 + 1e-9) + 1e-12]
        detail = "" if not bad else (f"{len(bad)} shown values differ, e.g. element {bad[0][0]}: shows {bad[0][1]}, "
                                     f"the reference computes {bad[0][2]:.9g}")
        shown.append(ShownExample(case.spec.id, len(tokens), not bad, detail))
    for s in shown:
        if not s.ok:
            out.append(Finding("error", SECTION, f"the statement's example for case {s.case} {s.detail}"))
    if len(blocks) < len(cases):
        missing = ", ".join(c.spec.id for c in cases[len(blocks):])
        out.append(Finding("note", SECTION, f"public cases not shown in statement.md: {missing}"))
    elif len(blocks) > len(cases):
        out.append(Finding("warning", SECTION, f"statement.md shows {len(blocks)} numeric examples but there are "
                                               f"only {len(cases)} public cases returning arrays to check them "
                                               "against"))
    return shown, out
