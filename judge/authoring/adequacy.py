"""Adequacy of the test data: is every known wrong implementation caught by a hidden case?

A wrong implementation caught by no case at all, or only by public cases (which a learner can read and
special-case), is a hole; a case that catches nothing the other cases do not is a candidate to remove or
sharpen."""

from __future__ import annotations

from judge.authoring.findings import Finding
from judge.authoring.killers import Killer
from judge.problem.models import CaseSpec

SECTION = "adequacy"


def adequacy_findings(cases: list[CaseSpec], killers: list[Killer]) -> list[Finding]:
    hidden = {c.id for c in cases if c.visibility == "hidden"}
    out: list[Finding] = []
    for k in killers:
        by = k.caught_by()
        what = f"{k.kind} {k.name}"
        if not by:
            out.append(Finding("error", SECTION, f"{what} is caught by no case: a learner passes with it"))
        elif not set(by) & hidden:
            out.append(Finding("warning", SECTION, f"{what} is caught only by public cases ({', '.join(by)}): "
                                                   "a learner who special-cases them passes"))
    unique = {c.id: [k.name for k in killers if k.caught_by() == [c.id]] for c in cases}
    idle = [c.id for c in cases if not any(k.caught.get(c.id) for k in killers)]
    redundant = [c.id for c in cases if c.id not in idle and not unique[c.id]]
    if idle:
        out.append(Finding("note", SECTION, f"cases that catch none of the {len(killers)} wrong implementations: "
                                            f"{', '.join(idle)}"))
    if redundant:
        out.append(Finding("note", SECTION, f"cases that catch nothing no other case catches: {', '.join(redundant)}"))
    cover = covering_cases(cases, killers)
    if cover:
        out.append(Finding("note", SECTION, f"{len(cover)} of {len(cases)} cases catch every caught wrong "
                                            f"implementation: {', '.join(cover)}"))
    return out


def covering_cases(cases: list[CaseSpec], killers: list[Killer]) -> list[str]:
    """A small set of cases that together catch every wrong implementation any case catches (greedy set
    cover, hidden cases first; public ones only for what no hidden case catches).  The other cases add
    nothing to the kill matrix as it stands: they guard against mistakes nobody has written down yet."""
    left = {k.name: set(k.caught_by()) for k in killers if k.caught_by()}
    chosen: list[str] = []
    while left:
        counts = {c.id: sum(c.id in by for by in left.values()) for c in cases}
        best = max(cases, key=lambda c: (c.visibility == "hidden" and counts[c.id] > 0, counts[c.id]))
        chosen.append(best.id)
        left = {name: by for name, by in left.items() if best.id not in by}
    return chosen


def matrix_text(cases: list[CaseSpec], killers: list[Killer]) -> list[str]:
    """Rows: wrong implementations; columns: cases (numbered, legend below); X caught, . passed, blank n/a."""
    if not killers:
        return ["(no wrong examples and no bank mistakes with an implementation: nothing to check)"]
    width = max(len(k.name) for k in killers) + 10
    head1 = " " * width + "".join(f"{(i + 1) // 10 or ' '}" for i in range(len(cases)))
    head2 = " " * width + "".join(f"{(i + 1) % 10}" for i in range(len(cases)))
    lines = [head1, head2]
    for k in killers:
        marks = "".join(" " if k.caught.get(c.id) is None else ("X" if k.caught.get(c.id) else ".") for c in cases)
        hidden = sum(bool(k.caught.get(c.id)) for c in cases if c.visibility == "hidden")
        lines.append(f"{k.kind[:7]:8}{k.name:{width - 8}}{marks}  {len(k.caught_by())} cases, {hidden} hidden")
    legend = [f"{i + 1}={c.id}{'*' if c.visibility == 'public' else ''}" for i, c in enumerate(cases)]
    lines.append("cases (* public): " + ", ".join(legend))
    return lines


def matrix_json(cases: list[CaseSpec], killers: list[Killer]) -> dict:
    return {"cases": [{"id": c.id, "visibility": c.visibility} for c in cases],
            "rows": [{"name": k.name, "kind": k.kind, "caught": k.caught} for k in killers]}
