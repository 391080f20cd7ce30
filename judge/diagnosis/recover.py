"""Recovering the formula: fit the learner's outputs to the bundle's family of plausible answers.

The bundle declares components (each a list of options, the right one first) and ``build(function, args,
choice)``; the judge searches combinations breadth-first from the right answer (and from the bundle's
direct guess, if it has ``recover``), checking each on the cheapest failing cases first, so most wrong
combinations cost one small build.  Outputs are cached on the bank, so a class full of the same mistakes
costs little.  The first combination that reproduces every checked failing case (and every small passing
one) is what the learner computed; combinations of banked mistakes become one combined name ("a+b").
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import TYPE_CHECKING

import numpy as np

from judge.diagnosis.bank import passing_small
from judge.diagnosis.base import REGISTRY, Candidate, Context, close
from judge.feedback import MessageRef, RecoveredComponent, Recovery
from judge.i18n import messages as msgs
from judge.i18n.catalog import fact, render, verbatim
from judge.i18n.numbers import ProseFormatter
from judge.problem.mistakes import FamilySpec
from judge.problem.models import Tolerance

if TYPE_CHECKING:
    from judge.problem.mistakes import Bank

MAX_CANDIDATES = 500       # combinations tried per verdict at most (deterministic, whatever the machine's load)
TIME_BUDGET = (
    3.0  # seconds: a safety net only (MAX_CANDIDATES bounds the work; a tight budget made results depend on the load)
)
MAX_FIT_CASES = 12         # failing cases used to search; all assessable ones are checked at the end
SEARCH_ELEMENTS = 1 << 14  # the search uses cases up to this size when there are any
MAX_GUESSES = 3            # cases the bundle's direct reading is tried on
CACHE_ELEMENTS = 1 << 16   # family outputs up to this size are kept across verdicts


class _Fitter:
    def __init__(self, ctx: Context, family: FamilySpec) -> None:
        self.ctx = ctx
        self.family = family
        assert ctx.bank is not None  # a family is the bank's
        self.bank = ctx.bank
        self.ids = [c.id for c in family.components]
        self.options = [[o.id for o in c.options] for c in family.components]
        self.default = tuple(o[0] for o in self.options)
        self.build = getattr(self.bank.module, family.build)
        self.deadline = time.perf_counter() + TIME_BUDGET
        self._tols: dict[tuple, Tolerance] = {}
        self.keep_large = False  # set while a combination that passed the search is checked on the large cases

    def tol(self, choice: tuple) -> Tolerance:
        if choice not in self._tols:
            atol, rtol = self.bank.spec.match_tolerance.atol, self.bank.spec.match_tolerance.rtol
            for comp, opt in zip(self.family.components, choice):
                t = next(o.match_tolerance for o in comp.options if o.id == opt)
                if t is not None:
                    atol, rtol = max(atol, t.atol), max(rtol, t.rtol)
            self._tols[choice] = Tolerance(atol=atol, rtol=rtol)
        return self._tols[choice]

    def output(self, choice: tuple, i: int) -> tuple[np.ndarray, str] | None:
        key = ("family", choice, self.ctx.prepared.bundle_index(i))
        out = self.bank.cache.get(key, False)
        if out is not False:
            return out
        out = None
        try:
            value = self.build(self.ctx.cases[i].function, self.ctx.prepared.inputs.cases[i].values,
                               dict(zip(self.ids, choice)))
            if isinstance(value, np.ndarray) and value.dtype.kind in "iuf":
                out = (np.asarray(value, dtype=np.float64), str(value.dtype))
        except Exception:  # noqa: BLE001 - a combination that cannot be built explains nothing
            out = None
        if out is not None and out[0].size > CACHE_ELEMENTS and not self.keep_large:
            return out  # large outputs of mere candidates are rebuilt: caching them would push out the small ones
        return self.bank.remember(key, out)

    def matches(self, choice: tuple, i: int, target: np.ndarray | None, learner: bool = True) -> bool:
        """Does the combination reproduce ``target`` on case i (the learner's output, or the expected one)?"""
        out = self.output(choice, i)
        if out is None or (learner and self.ctx.dtype_excludes(i, out[1])):
            return False
        return close(target, out[0], self.tol(choice))

    def neighbours(self, choice: tuple) -> Iterator[tuple]:
        changed = sum(a != b for a, b in zip(choice, self.default))
        for k, opts in enumerate(self.options):
            for o in opts:
                if o == choice[k]:
                    continue
                new = choice[:k] + (o,) + choice[k + 1:]
                if changed + (o != self.default[k]) - (choice[k] != self.default[k]) <= self.family.max_changes:
                    yield new


def _fact(family: FamilySpec, note: object) -> MessageRef | None:
    """One fact ``recover`` reported: a plain string, shown as it is (a bundle that words its facts in English
    only), or ``{"id": ..., "params": {...}}``, said from the text mistakes.yaml gives that id (its translations
    say it in the learner's language).  A fact the bundle does not word, or whose parameters do not fill its
    text, is left out: the bundle's slip must not cost the learner their verdict."""
    if isinstance(note, str):
        return verbatim(note)
    if not isinstance(note, dict) or set(note) - {"id", "params"} or note.get("id") not in family.facts:
        return None
    params = note.get("params") or {}
    if not isinstance(params, dict):
        return None
    values = {str(k): (float(v) if isinstance(v, (float, np.floating)) else int(v)
                       if isinstance(v, (int, np.integer)) and not isinstance(v, bool) else str(v))
              for k, v in params.items()}
    try:
        text = ProseFormatter("en").format(family.facts[note["id"]], **values)
    except (KeyError, ValueError, IndexError, TypeError):
        return None
    return fact(note["id"], text, values)


def _said(facts: list[MessageRef]) -> dict:
    """A Recovery's facts: the English texts every consumer reads, and their ids for the learner's language."""
    return {"facts": [render(f, "en") for f in facts], "said_facts": facts}


def _guess(fitter: _Fitter, ctx: Context, cases: list[int]) -> tuple[tuple | None, list[MessageRef]]:
    """The bundle's direct reading of the output (e.g. frequencies from row 1), as a start and as facts."""
    name = fitter.family.recover
    if not name:
        return None, []
    fn = getattr(fitter.bank.module, name)
    guess, facts = None, list[MessageRef]()
    for i in list(dict.fromkeys(cases))[:MAX_GUESSES]:
        try:
            found = fn(ctx.cases[i].function, ctx.prepared.inputs.cases[i].values, ctx.got(i)) or {}
        except Exception:  # noqa: BLE001
            continue
        notes = [_fact(fitter.family, x) for x in found.pop("facts", [])] if isinstance(found, dict) else []
        said = [msgs.FACT_IN_CASE(case=ctx.cases[i].id, fact=n) for n in notes if n is not None]
        if ctx.cases[i].visibility == "public" and said and not facts:
            facts = said
        if guess is None and found:
            guess = tuple(found.get(k, d) if found.get(k) in opts else d
                          for k, d, opts in zip(fitter.ids, fitter.default, fitter.options))
        if guess is not None and facts:
            break
    return guess, facts


def _describe(fitter: _Fitter, choice: tuple) -> list[RecoveredComponent]:
    out = []
    for comp, opt in zip(fitter.family.components, choice):
        o = next(x for x in comp.options if x.id == opt)
        out.append(RecoveredComponent(id=comp.id, name=comp.name, option=o.id, right=o.id == comp.options[0].id,
                                      text=o.text, mistake=o.mistake))
    return out


def _sentence(parts: list[RecoveredComponent]) -> str:
    wrong = [p.text for p in parts if not p.right]
    if not wrong:
        return ""
    return wrong[0] if len(wrong) == 1 else msgs.AND_LAST.en(items="; ".join(wrong[:-1]), last=wrong[-1])


def _assessable(ctx: Context, bank: Bank) -> list[int]:
    """Phase 1: the cases that can say something, smallest first: within the bank's size limit, and not
    already reproduced by the right answer at the bank's tolerance."""
    limit = bank.spec.max_elements
    return sorted((i for i in ctx.assessable() if ctx.expected(i).size <= limit
                   and not close(ctx.got(i), ctx.expected(i), bank.spec.match_tolerance)),
                  key=lambda i: ctx.expected(i).size)


def _search_family(fitter: _Fitter, ctx: Context, search: list[int], rest: list[int], passing: list[int],
                   guess: tuple | None) -> tuple[tuple | None, dict[tuple, int]]:
    """Phase 3: a breadth-first walk of the family from the guess and the right answer, one component changed
    at a time: the first choice that reproduces every searched and remaining failing case and keeps every
    passing one right; and, for each choice tried, how many searched cases in a row it reproduced."""
    found = None
    seen: set[tuple] = set()
    frontier = [c for c in (guess, fitter.default) if c is not None]
    best_prefix: dict[tuple, int] = {}
    while frontier and found is None:
        nxt: list[tuple] = []
        for choice in frontier:
            if choice in seen:
                continue
            seen.add(choice)
            if len(seen) > MAX_CANDIDATES or time.perf_counter() > fitter.deadline:
                return None, best_prefix
            ok = 0
            for i in search:
                if not fitter.matches(choice, i, ctx.got(i)):
                    break
                ok += 1
            best_prefix[choice] = ok
            if ok == len(search) and choice != fitter.default and _fits_failing(fitter, ctx, choice, rest) \
                    and _keeps_passing(fitter, ctx, choice, passing):
                found = choice
                break
            nxt.extend(n for n in fitter.neighbours(choice) if n not in seen)
        frontier = nxt
    return found, best_prefix


def _fits_failing(fitter: _Fitter, ctx: Context, choice: tuple, cases: list[int]) -> bool:
    fitter.keep_large = True  # a likely answer: the same file (or mistake) will come again
    try:
        return all(fitter.matches(choice, i, ctx.got(i)) for i in cases)
    finally:
        fitter.keep_large = False


def _keeps_passing(fitter: _Fitter, ctx: Context, choice: tuple, passing: list[int]) -> bool:
    return all(fitter.matches(choice, i, ctx.expected(i), learner=False) for i in passing)


def _simplest(fitter: _Fitter, ctx: Context, found: tuple, assessable: list[int], passing: list[int]) -> tuple:
    """Phase 4a: the simplest equivalent of a found formula: every change the outputs do not need undone
    (a guess may carry extra ones)."""
    for k, d in enumerate(fitter.default):
        simpler = found[:k] + (d,) + found[k + 1:]
        if simpler != found and simpler != fitter.default and _fits_failing(fitter, ctx, simpler, assessable) \
                and _keeps_passing(fitter, ctx, simpler, passing):
            found = simpler
    return found


def _explained(fitter: _Fitter, ctx: Context, bank: Bank, found: tuple, assessable: list[int],
               facts: list[MessageRef]) -> tuple[Recovery, list[Candidate]]:
    """Phase 4b: the formula that reproduces every failing case, said component by component, and the bank's
    mistakes it is made of as one candidate explanation (when every wrong component names one)."""
    parts = _describe(fitter, found)
    recovery = Recovery(summary=msgs.RECOVERED_EXACT.en(what=_sentence(parts)),
                        components=parts, explains=True, cases=[ctx.cases[i].id for i in assessable],
                        checked=len(assessable), **_said(facts))
    wrong = [p for p in parts if not p.right]
    candidates = []
    if all(p.mistake for p in wrong):
        order = {m.id: k for k, m in enumerate(bank.spec.mistakes)}
        ids = sorted({p.mistake for p in wrong if p.mistake}, key=lambda m: order.get(m, len(order)))
        message = " ".join(bank.message(m, REGISTRY[m].message if m in REGISTRY else m) for m in ids) \
            if len(ids) > 1 else None  # a generic mistake the bank does not reword keeps the judge's own sentence
        candidates.append(Candidate("+".join(ids), "mistake", list(assessable), len(assessable),
                                    components=len(ids), message=message))
    return recovery, candidates


def _closest(fitter: _Fitter, ctx: Context, search: list[int], best_prefix: dict[tuple, int],
             facts: list[MessageRef]) -> Recovery | None:
    """Phase 5: nothing reproduces every case: the closest combination (judged on the searched cases), and how
    close; or only the facts read off public outputs."""
    ranked = sorted((c for c in best_prefix if c != fitter.default), key=lambda c: -best_prefix[c])[:8]
    best, best_cases = None, list[int]()
    for choice in ranked:
        explained = [i for i in search if fitter.matches(choice, i, ctx.got(i))]
        if len(explained) > len(best_cases):
            best, best_cases = choice, explained
    if best is None:
        if not facts:
            return None
        return Recovery(summary=msgs.RECOVERED_NONE.en(), explains=False,
                        checked=len(search), **_said(facts))
    parts = _describe(fitter, best)
    n, m = len(best_cases), len(search)
    return Recovery(summary=msgs.RECOVERED_CLOSEST.en(n=n, m=m, what=_sentence(parts)),
                    components=parts, explains=False, cases=[ctx.cases[i].id for i in best_cases], checked=m,
                    **_said(facts))


def recover(ctx: Context) -> tuple[Recovery | None, list[Candidate]]:
    """The learner's output fitted to the bundle's family of plausible answers, in five phases: the cases that
    can say something (:func:`_assessable`), a guess from facts read off public outputs (:func:`_guess`), a
    search of the family (:func:`_search_family`), the simplest formula that reproduces every failing case
    (:func:`_simplest`, :func:`_explained`), else the closest one (:func:`_closest`)."""
    bank = ctx.bank
    if bank is None or bank.spec.family is None:
        return None, []
    family = bank.spec.family
    assessable = _assessable(ctx, bank)
    if not assessable:
        return None, []
    fitter = _Fitter(ctx, family)
    search = [i for i in assessable if ctx.expected(i).size <= SEARCH_ELEMENTS][:MAX_FIT_CASES] or assessable[:1]
    rest = [i for i in assessable if i not in search]
    passing = sorted(passing_small(ctx), key=lambda i: ctx.expected(i).size)
    guess, facts = _guess(fitter, ctx, [i for i in assessable if ctx.cases[i].visibility == "public"] + assessable)
    found, best_prefix = _search_family(fitter, ctx, search, rest, passing, guess)
    if found is not None:
        return _explained(fitter, ctx, bank, _simplest(fitter, ctx, found, assessable, passing), assessable, facts)
    return _closest(fitter, ctx, search, best_prefix, facts), []


__all__ = ["recover"]
