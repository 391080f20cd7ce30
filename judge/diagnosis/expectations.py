"""What a wrong-answer example expects of the feedback, as comment lines that ``judge verify`` checks.

``# diagnosis: <id>``    the explanation's name (``a+b`` for a combination, in the bank's order); it must be the
                         first diagnosis and explain every failing case it was checked on;
``# diagnosis: none``    no name may be given as the explanation (partial ones are fine: they are shown as such);
``# facts: c=o, ...``    the recovered formula reproduces the output and its wrong components are exactly these
                         (component=option of the bundle's family).
"""

from __future__ import annotations

import re

from judge.verdict import Verdict

_DIAGNOSIS_LINE = re.compile(rb"^#\s*diagnosis:\s*([A-Za-z0-9_+]+)\s*$", re.MULTILINE)
_FACTS_LINE = re.compile(rb"^#\s*facts:\s*(.+?)\s*$", re.MULTILINE)
NONE = "none"


def expected_diagnosis(source: bytes) -> str | None:
    match = _DIAGNOSIS_LINE.search(source)
    return match.group(1).decode() if match else None


def expected_facts(source: bytes) -> dict[str, str] | None:
    match = _FACTS_LINE.search(source)
    if not match:
        return None
    pairs = [p.strip().split("=", 1) for p in match.group(1).decode().split(",") if p.strip()]
    return {k.strip(): v.strip() for k, v in pairs}


def named(verdict: Verdict) -> str:
    """The name the learner is given as the explanation, or "none"."""
    first = verdict.diagnoses[0] if verdict.diagnoses else None
    return first.id if first is not None and first.explains else NONE


def recovered_facts(verdict: Verdict) -> dict[str, str] | None:
    r = verdict.recovered
    if r is None or not r.explains:
        return None
    return {c.id: c.option for c in r.components if not c.right}


def _text(source: bytes) -> bytes:
    """The example's lines: a notebook's are its code cells' (the comment lines live in a cell)."""
    from judge.notebooks import looks_like_notebook
    from judge.notebooks.read import NotebookProblem, read_cells

    if not looks_like_notebook(source):
        return source
    try:
        return "\n".join(cell.source for cell in read_cells(source)).encode()
    except NotebookProblem:
        return source


def check(source: bytes, verdict: Verdict) -> tuple[str, str, bool] | None:
    """(wanted, got, ok) for an example's expectation lines, or None if it has none."""
    source = _text(source)
    diagnosis, facts = expected_diagnosis(source), expected_facts(source)
    if diagnosis is None and facts is None:
        return None
    want, got, ok = [], [], True
    if diagnosis is not None:
        name = named(verdict)
        want.append(diagnosis)
        got.append(name)
        ok = ok and name == diagnosis
    if facts is not None:
        rec = recovered_facts(verdict)
        want.append(",".join(f"{k}={v}" for k, v in sorted(facts.items())))
        got.append("no formula" if rec is None else ",".join(f"{k}={v}" for k, v in sorted(rec.items())))
        ok = ok and rec == facts
    return " ".join(want), " ".join(got), ok
