"""``judge verify``'s counterexamples: the smallest input that catches each wrong implementation, and inputs
where an accepted example disagrees with the reference.

The same search learners get (:mod:`judge.diagnosis.counterexample`), turned to the author's questions:

- every bank mistake with an implementation (run in the judge's process on each candidate, like the
  reference: the bank is the author's trusted code), and every wrong example no case catches or only cases
  too large to show catch (run in the sandbox): the smallest input on which it differs, proposed as a
  ``judge case add`` line when no case catches it or no case small enough to be shown does;
- every accepted example, searched over the whole domain: an input where it disagrees with the reference is
  a missing case (a wrong file the cases let through), or a domain wider than the statement.

A function without a domain gets no search; verify says so once (learners get no counterexamples for it).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

from judge.authoring.findings import Finding
from judge.authoring.killers import Killer, judge_output
from judge.diagnosis.counterexample.candidates import MAX_ELEMENTS, size_of
from judge.diagnosis.counterexample.search import (
    Search,
    case_add_command,
    python_call,
    search_from,
    searchable,
    with_defaults,
)
from judge.grading.prepare import PreparedProblem
from judge.problem.expected import raises_expected

if TYPE_CHECKING:
    from judge.authoring.report import GradedExample
    from judge.engine import Judge
    from judge.problem.mistakes import Bank, MistakeSpec

SECTION = "counterexamples"


@dataclass
class Smallest:
    """The smallest input the search found for one implementation (None: none in the budget)."""

    name: str
    kind: str  #: mistake, example or accepted
    call: str | None
    case_add: str | None
    smallest_case: str | None  #: the smallest case that catches it, if any
    smallest_case_size: int | None

    def as_dict(self) -> dict:
        return asdict(self)


def domain_findings(prepared: PreparedProblem) -> list[Finding]:
    """A note per function without a domain (or with counterexamples turned off)."""
    out = []
    for function in prepared.bundle.spec.functions:
        if function.domain is None:
            out.append(Finding("note", SECTION, f"{function.name} has no input domain (problem.yaml: functions: "
                                                "domain): learners who fail it get no counterexample"))
        elif not function.domain.counterexamples:
            out.append(Finding("note", SECTION, f"{function.name}: counterexamples are turned off in its domain"))
    return out


def _catching(prepared: PreparedProblem, killer: Killer) -> tuple[list[int], str | None, int | None]:
    """The indices of the cases that catch ``killer``, and the smallest of them (id, size)."""
    indices = [i for i, c in enumerate(prepared.cases) if killer.caught.get(c.spec.id)]
    smallest: tuple[int, str] | None = None
    for i in indices:
        case = prepared.cases[i].spec
        function = prepared.bundle.spec.function(case.function)
        if function.domain is None:
            continue
        size = size_of(function, with_defaults(function, prepared.inputs.cases[i].values))
        if smallest is None or size < smallest[0]:
            smallest = (size, case.id)
    return indices, smallest[1] if smallest else None, smallest[0] if smallest else None


def _mistake_search(prepared: PreparedProblem, killer: Killer,
                    seeds: list[int]) -> tuple[Search | None, tuple[Bank, MistakeSpec]]:
    bank = prepared.bundle.bank
    assert bank is not None  # a mistake killer is the bank's
    mistake = next(m for m in bank.spec.mistakes if m.id == killer.name)
    functions = [f for f in searchable(prepared) if f in mistake.implements]
    return search_from(prepared, prepared.reference(), functions, seeds, exclude_public=True), (bank, mistake)


def _first_caught(search: Search, bank, mistake) -> int | None:  # noqa: ANN001
    """The first candidate (smallest first) on which the bank's implementation differs from the reference."""
    for i, case in enumerate(search.prepared.cases):
        fn = getattr(bank.module, mistake.implements[case.spec.function])
        try:
            out = fn(**search.prepared.inputs.cases[i].values)
        except Exception as exc:  # noqa: BLE001 - the mistake's own answer
            if not (case.spec.raises and raises_expected(exc, case.spec.raises)):
                return i
            continue
        if case.spec.raises or judge_output(case, out)[0]:
            return i
    return None


def mistake_smallest(prepared: PreparedProblem, killer: Killer) -> Smallest:
    indices, case_id, case_size = _catching(prepared, killer)
    search, (bank, mistake) = _mistake_search(prepared, killer, indices or list(range(len(prepared.cases))))
    call = add = None
    if search is not None:
        try:
            found = _first_caught(search, bank, mistake)
            if found is not None:
                candidate = search.candidates[found]
                call = python_call(candidate)
                add = case_add_command(prepared.bundle.id, candidate, search.prepared.cases[found].spec.raises)
        finally:
            search.close()
    return Smallest(killer.name, "mistake", call, add, case_id, case_size)


def example_smallest(judge: Judge, prepared: PreparedProblem, example: GradedExample, killer: Killer | None,
                     source: str) -> Smallest:
    indices, case_id, case_size = _catching(prepared, killer) if killer else ([], None, None)
    found = judge.search(source, prepared.bundle.root, indices or None)
    kind = "example" if killer else "accepted"
    return Smallest(example.name, kind, found.call if found else None, found.case_add if found else None, case_id,
                    case_size)


def _needs_a_case(row: Smallest) -> bool:
    """No case catches it, or every case that does is too large to show a learner."""
    return row.smallest_case is None or (row.smallest_case_size or 0) > MAX_ELEMENTS


def counterexample_report(judge: Judge, prepared: PreparedProblem, examples: list[GradedExample],
                          killers: list[Killer], sources: dict[str, str]) -> tuple[list[Smallest], list[Finding]]:
    """The rows of the section and its findings (``sources``: each example's text, by its name)."""
    findings = domain_findings(prepared)
    if not searchable(prepared):
        return [], findings
    rows: list[Smallest] = []
    by_name = {k.name: k for k in killers}
    for killer in killers:
        if killer.kind == "mistake":
            rows.append(mistake_smallest(prepared, killer))
    for example in examples:
        caught_by = by_name.get(example.name)
        if example.folder == "wrong_answer" and caught_by is not None:
            _, case_id, size = _catching(prepared, caught_by)
            if case_id is not None and (size or 0) <= MAX_ELEMENTS:
                continue  # a small case already catches it: learners see a counterexample anyway
            rows.append(example_smallest(judge, prepared, example, caught_by, sources[example.name]))
        elif example.folder == "accepted" and example.verdict.accepted:
            rows.append(example_smallest(judge, prepared, example, None, sources[example.name]))
    for row in rows:
        if row.kind == "accepted":
            if row.call:
                findings.append(Finding("warning", SECTION, f"accepted example {row.name} differs from the reference "
                                                            f"on a valid input: {row.call}; a missing case? "
                                                            f"{row.case_add}"))
        elif _needs_a_case(row):
            where = "no case catches it" if row.smallest_case is None else \
                f"only cases too large to show catch it (smallest {row.smallest_case}, {row.smallest_case_size} values)"
            proposal = f"the smallest that would: {row.case_add}" if row.case_add else "the search found no input"
            findings.append(Finding("warning", SECTION, f"{row.kind} {row.name}: {where}; {proposal}"))
    return rows, findings


def rows_text(rows: list[Smallest]) -> list[str]:
    if not rows:
        return ["(no function has an input domain: nothing searched)"]
    lines = []
    for row in rows:
        label = f"{row.kind:8} {row.name}"
        if row.kind == "accepted":
            lines.append(
                f"{label}: {'DIFFERS on ' + row.call if row.call else 'agrees with the reference on every input tried'}"
            )
            continue
        case = f"smallest catching case {row.smallest_case} ({row.smallest_case_size} values)" \
            if row.smallest_case else "no case catches it"
        lines.append(f"{label}: {row.call or 'no input found'}; {case}")
    return lines
