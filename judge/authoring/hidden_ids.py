"""Hidden case ids that tell their inputs: ``table-odd-33``, ``table-base-100``, ``add-3-leading-axes``.

Learners see hidden cases as "hidden case K of N" by default, but a feedback policy may show ids
(``feedback: {hidden_ids: true}``), teachers' views and logs show them, and an id that carries a case's numbers
or argument words is a hidden input written in plain sight.  ``judge verify`` warns (it grades nothing wrong, so
never an error): name a hidden case by what it tests, not by what it is called with.
"""

from __future__ import annotations

import re
from typing import Any

from judge.authoring.findings import Finding
from judge.problem.models import CaseSpec

_NUMBER = re.compile(r"\d+(?:\.\d+)?(?:e[+-]?\d+)?")
_NOT_ARGUMENTS = {"seed"}   # how a generated array is drawn, not what the learner's function is given


def _parts(args: Any, numbers: set[float], words: set[str], top: bool = False) -> None:
    """Every number and word in a case's arguments (values, generated shapes, dtypes, layouts, flags such as
    ``readonly``); not the parameters' own names (``top``): the signature is public."""
    if isinstance(args, dict):
        for key, value in args.items():
            if key in _NOT_ARGUMENTS:
                continue
            if not top:
                words.add(str(key).lower())
            _parts(value, numbers, words)
    elif isinstance(args, (list, tuple)):
        for value in args:
            _parts(value, numbers, words)
    elif isinstance(args, bool):
        return
    elif isinstance(args, (int, float)):
        numbers.add(float(args))
    elif isinstance(args, str):
        words.add(args.lower())
    elif hasattr(args, "model_dump"):
        _parts(args.model_dump(exclude_none=True, exclude_defaults=True), numbers, words)


def telling(case: CaseSpec, counted: bool = False) -> list[str]:
    """The pieces of ``case``'s id that are numbers or words of its arguments.  ``counted``: the bundle numbers
    its cases (``c01``, ``c02``, ...), so a number in an id is a counter, whatever the arguments hold."""
    numbers: set[float] = set()
    words: set[str] = set()
    _parts(case.args, numbers, words, top=True)
    found: list[str] = []
    for token in re.split(r"[-_]+", case.id.lower()):
        if token in words and len(token) >= 3:
            found.append(token)
            continue
        for number in [] if counted else _NUMBER.findall(token):
            if float(number) in numbers and number not in found:
                found.append(number)
        found += [w for w in re.findall(r"[a-z]{3,}", token) if w in words and w not in found and w != token]
    return found


def telling_ids(cases: list[CaseSpec]) -> list[Finding]:
    """A warning for each hidden case whose id carries its arguments."""
    findings = []
    counted = all(re.fullmatch(r"[a-z]*-?\d+", c.id) for c in cases)
    for case in cases:
        if case.visibility == "public":
            continue
        pieces = telling(case, counted)
        if pieces:
            findings.append(Finding("warning", "hidden ids", (
                f"hidden case {case.id!r}: its id carries {', '.join(repr(p) for p in pieces)} from its arguments; "
                "learners see 'hidden case K of N' unless feedback.hidden_ids is set, but name a hidden case by "
                "what it tests (teachers' views, logs and a policy that shows ids would reveal the input)")))
    return findings
