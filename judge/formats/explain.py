"""Text for the explanations of a verdict, written once so the text report and every export say the same.

Order, most telling first: what the failing cases have in common (patterns); the explanation (a named
mistake that reproduces every failing case it was checked on) or, plainly, that none does; what the learner
computed (the recovered formula and facts read off public outputs); then names that only partly explain.
"""

from __future__ import annotations

import re
import textwrap

from judge.verdict import Status, Verdict


def _wrap(text: str, indent: str, then: str | None = None) -> list[str]:
    return textwrap.wrap(text, width=100, initial_indent=indent,
                         subsequent_indent=indent if then is None else then) or [indent]


def pattern_lines(verdict: Verdict) -> list[str]:
    return [p.description[0].upper() + p.description[1:] + "." for p in verdict.patterns]


def explanation_lines(verdict: Verdict, indent: str = "  ") -> list[str]:
    """The explanation, the recovered formula, the facts and the partial names, as plain lines."""
    if not any(c.status is Status.WRONG_ANSWER for c in verdict.cases):
        return []
    lines: list[str] = []
    full = [d for d in verdict.diagnoses if d.explains]
    partial = [d for d in verdict.diagnoses if not d.explains]
    failing = sum(c.status is Status.WRONG_ANSWER for c in verdict.cases)
    if full:
        first = full[0]
        checked = first.checked or len(first.cases)
        lines += _wrap(f"{first.id}: explains all {checked} failing case{'s' if checked != 1 else ''} it was "
                       f"checked on{_unchecked(checked, failing)} (confidence {first.confidence:.0%})", indent,
                       indent + "    ")
        lines += _wrap(first.message, indent + "  ")
        if first.evidence:
            lines += _wrap(first.evidence, indent + "  ")
        for d in full[1:]:
            lines.append(f"{indent}also consistent: {d.id}")
            lines += _wrap(d.message, indent + "  ")
    else:
        lines.append(f"{indent}No known mistake explains every failing case.")
    r = verdict.recovered
    if r is not None and not (full and r.explains and "+" not in full[0].id and len(
            [c for c in r.components if not c.right]) == 1):
        if r.explains:
            lines.append(f"{indent}What your code computes:")
        lines += _wrap(r.summary, indent + ("  " if r.explains else ""))
        right = [c.name for c in r.components if c.right]
        if r.explains and right:
            lines += _wrap("Right: " + ", ".join(right) + ".", indent + "  ")
    if r is not None:
        for fact in r.facts:
            lines += _wrap("Fact: " + fact, indent)
    for d in partial:
        broken = _broken_passing(d)
        lines.append(f"{indent}partly explains: {d.id}, {len(d.cases)} of the {d.checked} failing case"
                     f"{'s' if d.checked != 1 else ''} it was checked on"
                     + (f", but {broken} passing case{'s' if broken != 1 else ''} would fail with it" if broken else "")
                     + f" ({d.confidence:.0%})")
        lines += _wrap(d.message, indent + "  ")
    return lines


def _unchecked(checked: int, failing: int) -> str:
    """Why a count of checked cases is below the failing cases the report counts elsewhere."""
    rest = failing - checked
    if rest <= 0:
        return ""
    return (f"; the other {rest} of the {failing} failing cases could not be checked against it (output too "
            "large to keep, or of another shape)")


def _broken_passing(d) -> int:  # noqa: ANN001 - a Diagnosis
    """How many passing cases the mistake would break: confidence is explained / (checked + broken)."""
    if d.confidence <= 0:
        return 0
    return max(0, round(len(d.cases) / d.confidence) - d.checked)


#: What the counterexample's ``differs`` says, as a sentence.
_DIFFERS = {
    "values": "the values differ", "shape": "the shape differs", "dtype": "the dtype differs",
    "not an array": "it did not return an array", "raises": "it raises where the reference returns",
    "raises another exception": "it raises another exception than the one it must",
    "returns": "it returns where it must raise", "input changed": "it changes its input",
}
COUNTEREXAMPLE_TITLE = "A smallest input where your function differs (the judge made it up: it is no case)"


def counterexample_lines(verdict: Verdict, indent: str = "  ") -> list[str]:
    """The counterexample as a few lines: the call, what was expected and what came back, arrays printed small."""
    found = verdict.counterexample
    if found is None:
        return []
    lines = _wrap(found.call, indent)
    lines.append(f"{indent}{_DIFFERS.get(found.differs, found.differs)}")
    if found.differs == "input changed":
        return lines + _input_changed_lines(found, indent)
    if found.expected_raises:
        lines.append(f"{indent}expected: raises {found.expected_raises}")
    else:
        lines += _array_lines("expected", found.expected, indent)
    if found.got is not None:
        lines += _array_lines("got", found.got, indent)
    elif found.got_text:  # the learner's own words (cut and cleaned by the search): said to be theirs
        said = "your code raised" if found.differs.startswith("raises") else "your function returned"
        lines += _wrap(f"{said}: {found.got_text}", indent)
    if found.message and found.differs in ("values", "input changed", "dtype", "shape"):
        lines += _wrap(found.message, indent)
    return lines


_MODIFIED = re.compile(r"modified its inputs? ([\w, ]+?) \(inputs must stay unchanged\)")


def _input_changed_lines(found, indent: str) -> list[str]:  # noqa: ANN001 - a Counterexample
    """What an input-changing counterexample is about: the input before the call (the returned value is right,
    or the same as expected: shown once), and that the call changed it."""
    named = _MODIFIED.search(found.message or "")
    changed = [n.strip() for n in named.group(1).split(",")] if named else \
        [k for k, v in found.args.items() if isinstance(v, dict)]
    lines: list[str] = []
    for name in changed:
        value = found.args.get(name)
        literal = value.get("literal") if isinstance(value, dict) else None
        if literal is not None:
            lines += _array_lines(f"{name} before the call", literal, indent, width=20)
        lines += _wrap(f"{name + ' after the call:':<20}changed: your function wrote into {name} (e.g. with {name} "
                       f"+= ... or {name}[...] = ...); return a new array and leave {name} as it was", indent,
                       indent + " " * 20)
    if found.expected is not None:
        same = found.got is not None and found.got == found.expected
        lines += _array_lines("returned" if same else "expected", found.expected, indent, width=20)
        if not same and found.got is not None:
            lines += _array_lines("got", found.got, indent, width=20)
    return lines


def _array_lines(label: str, values: object, indent: str, width: int = 10) -> list[str]:
    import numpy as np

    if values is None:
        return [f"{indent}{label + ':':<{width}}(too large to show: where they differ is below)"]
    if isinstance(values, dict):  # a tuple output: each item by its name
        lines = [f"{indent}{label + ':'}"]
        for name, item in values.items():
            lines += _array_lines(name, item, indent + "  ", width)
        return lines
    text = np.array2string(np.asarray(values, dtype=np.float64), precision=6, suppress_small=True, separator=", ",
                           threshold=48, edgeitems=3, max_line_width=96)
    head = f"{indent}{label + ':':<{width}}"
    rows = text.splitlines()
    return [head + rows[0]] + [" " * len(head) + row for row in rows[1:]]


def notebook_line(verdict: Verdict) -> str:
    """Which cells of a notebook were graded, and that the others were never run."""
    nb = verdict.notebook
    assert nb is not None  # asked only for a notebook's verdict
    cells = ", ".join(map(str, nb.cells_used))
    skipped = f"; not Python or not parsed: cell{'s' if len(nb.cells_skipped) > 1 else ''} " \
        f"{', '.join(map(str, nb.cells_skipped))}" if nb.cells_skipped else ""
    return (f"notebook: graded the definitions in cell{'s' if len(nb.cells_used) != 1 else ''} {cells} (only what "
            f"the functions need; nothing else was run){skipped}")


def time_lines(verdict: Verdict) -> list[str]:
    return _wrap(verdict.time_feedback.message, "  ") if verdict.time_feedback else []
