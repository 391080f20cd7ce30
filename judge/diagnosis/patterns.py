"""Failure patterns: the simplest property of the cases that separates failing from passing ones.

Generic: properties come from the bundle alone (the function called, scalar arguments with the signature's
defaults, array arguments' dtype / layout / read-only flag, the output's axes as problem.yaml names them,
leading axes, the author's ``tags``), never from per-problem code.  A pattern is *exact* when the cases with
the property are exactly the failing ones; otherwise it may *cover* them (every failing case has it, and at
least half of the cases with it fail).  Hidden cases are counted and listed by id, never described by value.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

import numpy as np

from judge.feedback import FailurePattern, MessageRef
from judge.grading.prepare import PreparedProblem
from judge.grading.terms import Terms, plural
from judge.i18n import messages as m
from judge.i18n.catalog import render, verbatim
from judge.verdict import CaseResult, Status

_VERBS = {Status.WRONG_ANSWER: "gives a wrong answer", Status.RUNTIME_ERROR: "crashes",
          Status.TIME_LIMIT_EXCEEDED: "runs out of time", Status.MEMORY_LIMIT_EXCEEDED: "runs out of memory"}
#: The same verbs as message ids (judge.i18n), for the patterns said in the learner's language.
_VERB_IDS = {"gives a wrong answer": m.VERB_WRONG, "crashes": m.VERB_CRASHES, "runs out of time": m.VERB_TIME,
             "runs out of memory": m.VERB_MEMORY, "fails": m.VERB_FAILS}


@dataclass(frozen=True)
class Atom:
    """A property of a case: its text and the set of cases (bit mask) that have it."""

    text: str
    mask: int
    rank: int          # lower: simpler / more telling, preferred on ties
    categorical: bool  # a kind of case, not one particular value (may describe a single failing case)
    said: MessageRef | None = None  # the text as a message id (judge.i18n), for the learner's language


def _defaults(signature: str) -> dict[str, object]:
    try:
        fn = ast.parse(f"def {signature}: pass").body[0]
    except SyntaxError:
        return {}
    if not isinstance(fn, ast.FunctionDef):  # always a def here; says so to the type checker
        return {}
    args = fn.args.args
    out = {}
    for a, d in zip(args[len(args) - len(fn.args.defaults):], fn.args.defaults):
        try:
            out[a.arg] = ast.literal_eval(d)
        except ValueError:
            pass
    return out


def _fmt(v: object) -> str:
    if isinstance(v, float) and v.is_integer():
        return f"{v:g}" if abs(v) < 1e6 else f"{v:.0e}"
    return repr(v) if isinstance(v, str) else f"{v:g}" if isinstance(v, float) else str(v)


_atoms_cache: dict[tuple, list[Atom]] = {}


def case_atoms(prepared: PreparedProblem) -> list[Atom]:
    """Every property worth naming, with the cases that have it (computed once per bundle version)."""
    bundle = prepared.bundle
    specs = [c.spec for c in prepared.cases]  # a phase's cases (judge.grading.phases) are some of the bundle's
    key = (str(bundle.root), bundle.digest, prepared.indices)
    if key in _atoms_cache:
        return _atoms_cache[key]
    props: dict[tuple, int] = {}
    texts: dict[tuple, tuple[MessageRef, int, bool]] = {}

    def add(k: tuple, said: MessageRef, rank: int, categorical: bool, i: int) -> None:
        props[k] = props.get(k, 0) | (1 << i)
        texts[k] = (said, rank, categorical)

    # What an output axis's length is called: a scalar argument equal to it in every case of a function.
    axis_alias: dict[str, str] = {}
    for f in bundle.spec.functions:
        idx = [i for i, c in enumerate(specs) if c.function == f.name]
        for k, axis in enumerate(f.axes):
            pos = k - len(f.axes)
            for p in f.params:
                vals = [prepared.inputs.cases[i].values.get(p) for i in idx]
                if idx and all(isinstance(v, int) and len(prepared.cases[i].expected.shape) >= -pos
                               and v == prepared.cases[i].expected.shape[pos]
                               for v, i in zip(vals, idx)):
                    axis_alias.setdefault(axis.name, p)
    for i, case in enumerate(specs):
        f = bundle.spec.function(case.function)
        add(("fn", f.name), m.ATOM_CALL(function=f.name), 2, True, i)
        for t in case.tags:
            add(("tag", t), m.ATOM_TAG(tag=t), 0, True, i)
        values = dict(_defaults(f.signature))
        values.update(prepared.inputs.cases[i].values)
        for p, v in values.items():
            if isinstance(v, np.ndarray):  # layout and writability as the case declares them (the judge's copy
                spec = case.args.get(p)   # of the inputs is always read-only)
                add(("dtype", p, str(v.dtype)), m.ATOM_IS(name=p, what=str(v.dtype)), 1, True, i)
                layout = getattr(spec, "layout", "c")
                add(("layout", p, layout), m.ATOM_IS(name=p, what=m.ATOM_LAYOUTS[layout]()), 1, True, i)
                ro = bool(getattr(spec, "readonly", False))
                add(("ro", p, ro), m.ATOM_IS(name=p, what=(m.ATOM_READ_ONLY if ro else m.ATOM_WRITABLE)()), 1, True,
                    i)
            elif isinstance(v, bool) or v is None or isinstance(v, str):
                add(("eq", p, v), m.ATOM_IS(name=p, what=_fmt(v)), 5, False, i)
            elif isinstance(v, (int, float)):
                add(("eq", p, v), verbatim(f"{p} = {_fmt(v)}"), 7, False, i)
                if p in _defaults(f.signature):
                    d = _defaults(f.signature)[p]
                    add(("default", p, v == d), verbatim(f"{p} {'=' if v == d else '!='} {_fmt(d)}"), 3, True, i)
        terms = Terms(f, prepared.cases[i].expected.shape, prepared.cases[i].parts)
        lead, lead_name = terms.lead, terms.leading_name
        if f.axes:
            axes = {"axis": lead_name}
            add(("lead", lead == 0), (m.ATOM_NO_LEAD if lead == 0 else m.ATOM_SOME_LEAD)(**axes), 2, True, i)
            add(("lead1", lead == 1), (m.ATOM_ONE_LEAD if lead == 1 else m.ATOM_NOT_ONE_LEAD)(**axes), 3, True, i)
            if lead:
                add(("lead>1", lead > 1), (m.ATOM_MANY_LEAD if lead > 1 else m.ATOM_ONE_LEAD)(**axes), 2, True, i)
        for axis, n in terms.named_sizes():
            alias = axis_alias.get(axis.name)
            label = verbatim(alias) if alias else m.ATOM_NUMBER_OF(axes=plural(axis.name))
            add(("parity", axis.name, n % 2), (m.ATOM_ODD if n % 2 else m.ATOM_EVEN)(label=label), 2, True, i)
            add(("one", axis.name, n == 1), (m.ATOM_IS_ONE if n == 1 else m.ATOM_MORE_THAN_ONE)(label=label), 4,
                True, i)
    # A particular value is named only if a public case has it: hidden cases' arguments stay unsaid.
    public = sum(1 << i for i, c in enumerate(specs) if c.visibility == "public")
    atoms = [Atom(render(texts[k][0], "en"), mask, texts[k][1], texts[k][2], texts[k][0])
             for k, mask in props.items() if texts[k][2] or mask & public]
    atoms.sort(key=lambda a: a.rank)
    _atoms_cache[key] = atoms
    return atoms


def _bits(mask: int) -> list[int]:
    return [i for i in range(mask.bit_length()) if mask >> i & 1]


def _pair_rank(a: Atom) -> int:
    """In a pair, which function is called is the most natural first half ("add_... and no batch axis")."""
    return 0 if a.text.startswith("the call is to ") else a.rank


def _said(a: Atom) -> MessageRef:
    return a.said if a.said is not None else verbatim(a.text)


def _find(atoms: list[Atom], target: int, known: int) -> tuple[MessageRef, bool] | None:
    """The simplest property whose cases (among ``known``) are exactly ``target``; else one that covers it."""
    n_target = bin(target).count("1")
    for a in atoms:
        if a.mask & known == target and (a.categorical or n_target > 1):
            return _said(a), True
    pairs = sorted(((a, b) for k, a in enumerate(atoms) for b in atoms[k + 1:]
                    if a.categorical and b.categorical), key=lambda ab: _pair_rank(ab[0]) + _pair_rank(ab[1]))
    for a, b in pairs:
        if a.mask & b.mask & known == target:
            return m.ATOM_AND(first=_said(a), second=_said(b)), True
    best = None
    for a in atoms:
        has = a.mask & known
        if not (a.categorical or n_target > 1):
            continue
        if has & target != target or bin(has).count("1") * 4 > bin(known).count("1") * 3:
            continue  # a property most cases have says little
        extra = bin(has & ~target).count("1")
        if extra <= n_target and (best is None or (extra, a.rank) < best[0]):
            best = ((extra, a.rank), a, bin(has).count("1"))
    if best is not None:
        return m.ATOM_SUCH(atom=_said(best[1]), failing=n_target, total=best[2]), False
    return None


def failure_patterns(prepared: PreparedProblem, cases: list[CaseResult]) -> list[FailurePattern]:
    known = sum(1 << i for i, c in enumerate(cases) if c.status is not Status.SKIPPED)
    failing = [i for i, c in enumerate(cases) if c.status not in (Status.ACCEPTED, Status.SKIPPED)]
    if not failing or len(cases) != len(prepared.cases):
        return []
    atoms = case_atoms(prepared)
    groups: list[tuple[str, list[int]]] = []
    statuses = {cases[i].status for i in failing}
    verb = _VERBS.get(next(iter(statuses)), "fails") if len(statuses) == 1 else "fails"
    groups.append((verb, failing))
    if len(statuses) > 1:
        for s in sorted(statuses, key=lambda s: s.value):
            groups.append((_VERBS.get(s, s.value.replace("_", " ")), [i for i in failing if cases[i].status is s]))
    out: list[FailurePattern] = []
    for verb, idx in groups:
        target = sum(1 << i for i in idx)
        if target == known:
            if not out:
                said = [m.EVERY_CASE_THAT_RAN(verb=_VERB_IDS.get(verb, m.VERB_FAILS)())]
                out.append(FailurePattern(description=f"{verb} on every case that ran",
                                          cases=[cases[i].id for i in idx], said=said))
            break
        found = _find(atoms, target, known)
        if found is None:
            continue
        text, exact = found
        n = len(idx)
        status = {v: k for k, v in _VERBS.items()}.get(verb)
        if exact:
            phrase = (m.EXACTLY_ON(verb=_VERB_IDS.get(verb, m.VERB_FAILS)(), count=n, where=text) if n > 1
                    else m.ONLY_ON(verb=_VERB_IDS.get(verb, m.VERB_FAILS)(), where=text))
        else:
            phrase = m.EVERY_CASE_THAT(past=m.PAST.get(status.value if status else "", m.PAST_FAILED)(), where=text)
        out.append(FailurePattern(description=render(phrase, "en"), cases=[cases[i].id for i in idx], exact=exact,
                                  said=[phrase]))
        if len(out) == 1 and exact and idx is failing:
            break
    return out
