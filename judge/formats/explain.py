"""Text for the explanations of a verdict, written once so the text report and every export say the same.

Order, most telling first: what the failing cases have in common (patterns); the explanation (a named
mistake that reproduces every failing case it was checked on) or, plainly, that none does; what the learner
computed (the recovered formula and facts read off public outputs); then names that only partly explain.
"""

from __future__ import annotations

import re
import textwrap

from judge.i18n import messages as m
from judge.i18n.catalog import say
from judge.verdict import Status, Verdict


def _wrap(text: str, indent: str, then: str | None = None) -> list[str]:
    return textwrap.wrap(text, width=100, initial_indent=indent,
                         subsequent_indent=indent if then is None else then) or [indent]


def pattern_lines(verdict: Verdict) -> list[str]:
    return [p.description[0].upper() + p.description[1:] + "." for p in verdict.patterns]


def explanation_lines(verdict: Verdict, indent: str = "  ", lang: str = "en") -> list[str]:
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
        lines += _wrap(say(m.EXPLAINS_ALL, lang, id=first.id, checked=checked,
                           unchecked=_unchecked(checked, failing, lang), confidence=float(first.confidence)),
                       indent, indent + "    ")
        lines += _wrap(first.message, indent + "  ")
        if first.evidence:
            lines += _wrap(first.evidence, indent + "  ")
        for d in full[1:]:
            lines.append(indent + say(m.ALSO_CONSISTENT, lang, id=d.id))
            lines += _wrap(d.message, indent + "  ")
    else:
        lines.append(indent + say(m.NO_KNOWN_MISTAKE, lang))
    r = verdict.recovered
    if r is not None and not (full and r.explains and "+" not in full[0].id and len(
            [c for c in r.components if not c.right]) == 1):
        if r.explains:
            lines.append(indent + say(m.WHAT_YOUR_CODE_COMPUTES, lang))
        lines += _wrap(r.summary, indent + ("  " if r.explains else ""))
        right = [c.name for c in r.components if c.right]
        if r.explains and right:
            lines += _wrap(say(m.RIGHT, lang, items=", ".join(right)), indent + "  ")
    if r is not None:
        for fact in r.facts:
            lines += _wrap(say(m.FACT, lang, fact=fact), indent)
    for d in partial:
        broken = _broken_passing(d)
        lines.append(indent + say(m.PARTLY_EXPLAINS, lang, id=d.id, cases=len(d.cases), checked=d.checked,
                                  broken=say(m.BROKEN_PASSING, lang, broken=broken) if broken else "",
                                  confidence=float(d.confidence)))
        lines += _wrap(d.message, indent + "  ")
    return lines


def _unchecked(checked: int, failing: int, lang: str = "en") -> str:
    """Why a count of checked cases is below the failing cases the report counts elsewhere."""
    rest = failing - checked
    if rest <= 0:
        return ""
    return say(m.UNCHECKED, lang, rest=rest, failing=failing)


def _broken_passing(d) -> int:  # noqa: ANN001 - a Diagnosis
    """How many passing cases the mistake would break: confidence is explained / (checked + broken)."""
    if d.confidence <= 0:
        return 0
    return max(0, round(len(d.cases) / d.confidence) - d.checked)


#: What the counterexample's ``differs`` says, as a sentence.
_DIFFERS = {
    "values": m.DIFFERS_VALUES, "shape": m.DIFFERS_SHAPE, "dtype": m.DIFFERS_DTYPE,
    "not an array": m.DIFFERS_NOT_ARRAY, "raises": m.DIFFERS_RAISES,
    "raises another exception": m.DIFFERS_OTHER_EXCEPTION,
    "returns": m.DIFFERS_RETURNS, "input changed": m.DIFFERS_INPUT,
}
COUNTEREXAMPLE_TITLE = m.R_COUNTEREXAMPLE.text


def counterexample_lines(verdict: Verdict, indent: str = "  ", lang: str = "en") -> list[str]:
    """The counterexample as a few lines: the call, what was expected and what came back, arrays printed small."""
    found = verdict.counterexample
    if found is None:
        return []
    lines = _wrap(found.call, indent)
    differs = _DIFFERS.get(found.differs)
    lines.append(f"{indent}{say(differs, lang) if differs is not None else found.differs}")
    if found.differs == "input changed":
        return lines + _input_changed_lines(found, indent, lang)
    expected, got = say(m.CE_EXPECTED, lang), say(m.CE_GOT, lang)
    width = max(10, len(expected) + 1, len(got) + 1)
    if found.expected_raises:
        lines.append(indent + say(m.CE_EXPECTED_RAISES, lang, exception=found.expected_raises))
    else:
        lines += _array_lines(expected[:-1], found.expected, indent, width, lang)
    if found.got is not None:
        lines += _array_lines(got[:-1], found.got, indent, width, lang)
    elif found.got_text:  # the learner's own words (cut and cleaned by the search): said to be theirs
        said = m.CE_YOUR_CODE_RAISED if found.differs.startswith("raises") else m.CE_YOUR_FUNCTION_RETURNED
        # kept in its own lines: a traceback stays as Python wrote it, never run into the judge's words
        lines += [indent + line for line in say(said, lang, text=found.got_text).splitlines()]
    if found.message and found.differs in ("values", "input changed", "dtype", "shape"):
        lines += _wrap(found.message, indent)
    return lines


_MODIFIED = re.compile(r"modified its inputs? ([\w, ]+?) \(inputs must stay unchanged\)")


def _input_changed_lines(found, indent: str, lang: str = "en") -> list[str]:  # noqa: ANN001 - a Counterexample
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
            lines += _array_lines(say(m.CE_BEFORE_CALL, lang, name=name), literal, indent, width=20, lang=lang)
        lines += _wrap(f"{say(m.CE_AFTER_CALL, lang, name=name):<20}{say(m.CE_WROTE_INTO, lang, name=name)}", indent,
                       indent + " " * 20)
    if found.expected is not None:
        same = found.got is not None and found.got == found.expected
        lines += _array_lines(say(m.CE_RETURNED if same else m.CE_EXPECTED_WORD, lang), found.expected, indent,
                              width=20, lang=lang)
        if not same and found.got is not None:
            lines += _array_lines(say(m.CE_GOT_WORD, lang), found.got, indent, width=20, lang=lang)
    return lines


def _array_lines(label: str, values: object, indent: str, width: int = 10, lang: str = "en") -> list[str]:
    import numpy as np

    colon = ":" if lang == "en" or label.endswith(" ") else ("\u00a0:" if lang == "fr" else ":")
    if values is None:
        return [f"{indent}{label + colon:<{width}}{say(m.CE_TOO_LARGE, lang)}"]
    if isinstance(values, dict):  # a tuple output: each item by its name
        lines = [f"{indent}{label + colon}"]
        for name, item in values.items():
            lines += _array_lines(name, item, indent + "  ", width, lang)
        return lines
    text = np.array2string(np.asarray(values, dtype=np.float64), precision=6, suppress_small=True, separator=", ",
                           threshold=48, edgeitems=3, max_line_width=96)
    head = f"{indent}{label + ':':<{width}}"
    rows = text.splitlines()
    return [head + rows[0]] + [" " * len(head) + row for row in rows[1:]]


def notebook_line(verdict: Verdict, lang: str = "en") -> str:
    """Which cells of a notebook were graded, and that the others were never run."""
    nb = verdict.notebook
    assert nb is not None  # asked only for a notebook's verdict
    skipped = say(m.NOTEBOOK_SKIPPED, lang, count=len(nb.cells_skipped),
                  cells=", ".join(map(str, nb.cells_skipped))) if nb.cells_skipped else ""
    return say(m.NOTEBOOK_GRADED, lang, count=len(nb.cells_used), cells=", ".join(map(str, nb.cells_used)),
               skipped=skipped)


def time_lines(verdict: Verdict) -> list[str]:
    return _wrap(verdict.time_feedback.message, "  ") if verdict.time_feedback else []
