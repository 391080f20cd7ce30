"""The inputs a counterexample search tries, from a function's input domain: small ones first, deterministic.

Hypothesis' shrinker is the model, but its rounds adapt to each answer and this search must fit one sandboxed
run, so the rounds are laid out in advance, from three sources:

- the smallest valid inputs: every length from the domain's lower bound up a few steps, default scalars, the
  first dtype and layout, no leading axes;
- each failing case's *box* (:mod:`.seeds`): the lengths that still hold its first wrong element, with all of
  its features, with each one alone and with none: the shrink most likely to fail again;
- shrinks of each failing case: its features kept whole, one left out, one alone or none, each at a ladder of
  lengths from the smallest up to the case's own (and its box).

The boxes and the large candidates come first; then the pools' candidates in one order, smallest first, until
the budget is spent (so every candidate smaller than the last one taken is tried).  A candidate is a set of arguments in the bundle's case syntax (``judge case add`` accepts them
as they are) with a *size*, its place in that order: its elements (every array's plus the product of the ints) times one
more than the features it keeps (a plain input is simpler than a smaller one that is read-only, float32 and
batched), then its elements, leading axes and features alone.  Nothing here reads a clock or unseeded randomness: the
same failing cases give the same candidates on every machine.
"""

from __future__ import annotations

import heapq
import itertools
import json
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from judge.diagnosis.counterexample.seeds import Feature, Length, Seed, length_key, lengths_of, plain_scalar
from judge.problem.models import ArrayDomain, Domain, FloatDomain, FunctionSpec, IntDomain

#: Lengths above the domain's lower bound the smallest inputs try (lo, lo+1, ... lo+SMALL_STEPS).
SMALL_STEPS = 3
#: Elements a candidate may have at most (its values are shown in full).
MAX_ELEMENTS = 512
#: The largest length a shrink's ladder climbs to (a box may ask for more).
LADDER_TOP = 8
#: Failing cases a search starts from (the smallest ones).
MAX_SEEDS = 3
#: Large candidates per failing case, for mistakes no small input shows (float32 error that grows with the
#: position): zeros (positions: 0, 1, 2, ...) that ``np.zeros`` writes in one line, never shown in full.
LARGE_PER_SEED = 4
#: Elements a large candidate may have at most.
LARGE_MAX_ELEMENTS = 1 << 18


@dataclass(frozen=True)
class Candidate:
    """One input to try: ``args`` in case syntax, ``size`` its place in the search's order."""

    function: str
    args: dict[str, Any] = field(hash=False)
    size: tuple = field(hash=False)
    key: str = ""  #: a canonical text of the arguments (equal candidates have equal keys)


def size_of(function: FunctionSpec, values: dict[str, Any]) -> int:
    """How large a call is, as candidates are ordered: every array's elements plus the product of the ints."""
    domain = function.domain
    assert domain is not None
    elements, ints = 0, []
    for name, arg in domain.args.items():
        value = values.get(name)
        if isinstance(arg, IntDomain) and isinstance(value, (int, np.integer)):
            ints.append(int(value))
        elif isinstance(arg, ArrayDomain) and value is not None:
            elements += int(np.asarray(value).size)
    return elements + (math.prod(ints) if ints else 0)


# -- plans: a candidate before its values are made, cheap to build and order ------------------------------------


@dataclass(frozen=True)
class _Plan:
    size: tuple
    lengths: tuple[int, ...]
    features: frozenset
    large: bool = False  #: filled with zeros (positions: arange), written as ``generate``


class _Shapes:
    """How a function's lengths and features make the candidate's arrays: computed once per function."""

    def __init__(self, function: FunctionSpec) -> None:
        assert function.domain is not None
        self.function = function
        self.domain: Domain = function.domain
        self.lengths: list[Length] = lengths_of(self.domain)
        self.index = {length.key: i for i, length in enumerate(self.lengths)}
        self.ints = [self.index[k] for k, arg in self.domain.args.items() if isinstance(arg, IntDomain)]
        self.axes = {name: [self.index[length_key(self.domain, name, axis)] for axis in arg.array.axes]
                     for name, arg in self.domain.args.items() if isinstance(arg, ArrayDomain)}

    def shape(self, name: str, lengths: tuple[int, ...], keep: dict) -> tuple[int, ...] | None:
        arg = self.domain.args[name]
        assert isinstance(arg, ArrayDomain)
        if arg.optional and (name, "given") not in keep:
            return None
        a = arg.array
        owner = name
        if a.leading_like is not None:  # the leading axes of another argument, exactly
            owner, a = a.leading_like, self.domain.args[a.leading_like].array  # type: ignore[union-attr]
        lead = (keep.get((owner, "lead_size"), a.leading_size[0]),) * keep.get((owner, "lead"), a.leading[0])
        return lead + tuple(lengths[i] for i in self.axes[name])

    def plan(self, lengths: tuple[int, ...], features: frozenset, large: bool = False) -> _Plan | None:
        keep = {(name, what): value for name, what, value in features}
        elements, leading = 0, 0
        for name, arg in self.domain.args.items():
            if isinstance(arg, ArrayDomain):
                shape = self.shape(name, lengths, keep)
                if shape is not None:
                    elements += math.prod(shape)
                    leading += len(shape) - len(arg.array.axes)
        product = math.prod(lengths[i] for i in self.ints) if self.ints else 0
        most = LARGE_MAX_ELEMENTS if large else MAX_ELEMENTS
        if elements > most or product > most:  # ints: the product stands for the output's size
            return None
        weighted = (elements + product) * (1 + len(features))  # a feature costs as much as the elements it needs
        return _Plan((weighted, elements + product, leading, len(features), lengths,
                      tuple(sorted(map(repr, features)))), lengths, features, large)


def _ladder(length: Length, seed: int | None, box: int | None) -> list[int]:
    """Values to try for one length: the smallest few, the smallest with the seed's parity, a few steps up to
    LADDER_TOP, the box (and the next value with the seed's parity); never above the seed or the domain."""
    lo, hi = length.lo, length.hi
    top = min(hi, seed) if seed is not None else min(hi, lo + SMALL_STEPS)
    values = set(range(lo, lo + SMALL_STEPS + 1))
    if seed is not None:
        parity = (seed - lo) % 2
        values |= {lo + parity, lo + 2 + parity} | set(range(lo, LADDER_TOP + 1))
        if box is not None:
            values |= {box, box + (seed - box) % 2}
    return sorted(v for v in values if lo <= v <= top)


#: Combinations of lengths one pool may weigh: a function with many lengths (attention: five) keeps its ladders'
#: smaller values, so a pool costs milliseconds, not seconds (the smallest candidates are the ones taken anyway).
MAX_POOL_COMBINATIONS = 256


def _pool(shapes: _Shapes, seed: Seed | None, features: frozenset, limit: int) -> list[_Plan]:
    """The ``limit`` smallest plans with these features, over the product of the lengths' ladders (their
    largest values dropped, the longest ladder's first, while it has more than MAX_POOL_COMBINATIONS)."""
    ladders = [_ladder(length, seed.lengths.get(length.key) if seed else None,
                       seed.box.get(length.key) if seed else None) for length in shapes.lengths]
    while math.prod(len(ladder) for ladder in ladders) > MAX_POOL_COMBINATIONS:
        longest = max(ladders, key=len)
        longest.pop()
    plans = (shapes.plan(lengths, features) for lengths in itertools.product(*ladders))
    return heapq.nsmallest(limit, (p for p in plans if p is not None), key=lambda p: p.size)


def _box_plans(shapes: _Shapes, seed: Seed) -> list[_Plan]:
    """The seed shrunk to its box: all its features, each alone, none."""
    if not seed.box:
        return []
    lengths = []
    for length in shapes.lengths:
        own = seed.lengths.get(length.key)
        want = seed.box.get(length.key, length.lo)
        if own is not None:
            want = min(own, want + (own - want) % 2)  # the seed's parity (odd sizes are often the point)
        lengths.append(max(length.lo, min(want, length.hi)))
    subsets = [frozenset(seed.features), frozenset()] + [frozenset([f]) for f in seed.features]
    return [p for p in (shapes.plan(tuple(lengths), s) for s in subsets) if p is not None]


def _large_plans(shapes: _Shapes, seed: Seed, hidden: bool) -> list[_Plan]:
    """For a failing case larger than any small candidate: its lengths halved again and again (the seed's parity
    kept), all its features, a few sizes spread from just above the small ones up to the case's own (for a
    hidden case, half its own at most: a counterexample never has a hidden case's shape)."""
    ladders = []
    for length in shapes.lengths:
        own = seed.lengths.get(length.key, length.lo)
        values, v = set(), own
        while v >= length.lo:
            values.add(min(own, v + (own - v) % 2))
            if v <= 0:  # an int that may be 0 or negative (an axis) halves no further
                break
            v //= 2
        ladders.append(sorted(values))
    whole = frozenset(seed.features)
    own_lengths = tuple(seed.lengths.get(length.key, length.lo) for length in shapes.lengths)
    plans = [p for p in (shapes.plan(lengths, whole, large=True) for lengths in itertools.product(*ladders)
                         if not (hidden and lengths == own_lengths)) if p is not None and p.size[1] > MAX_ELEMENTS]
    if not plans:
        return []
    plans.sort(key=lambda p: p.size)
    picks = sorted({round(k * (len(plans) - 1) / max(1, LARGE_PER_SEED - 1)) for k in range(LARGE_PER_SEED)})
    return [plans[k] for k in picks]


def _subsets(features: tuple[Feature, ...]) -> list[frozenset]:
    """Which features a shrink keeps: all, all but one, each alone, none (every subset when there are few)."""
    if len(features) <= 3:
        chosen = [frozenset(c) for k in range(len(features), -1, -1) for c in itertools.combinations(features, k)]
    else:
        whole = frozenset(features)
        chosen = [whole] + [whole - {f} for f in features] + [frozenset([f]) for f in features] + [frozenset()]
    return list(dict.fromkeys(chosen))


def candidates(function: FunctionSpec, seeds: list[tuple[Seed, bool]], budget: int,
               exclude: list[dict[str, Any]] = ()) -> list[Candidate]:
    """At most ``budget`` candidates for ``function`` (which has a domain), smallest first.  ``seeds``: its
    failing cases, smallest first, each with whether it is hidden; ``exclude``: argument values no candidate may
    equal (the hidden cases')."""
    shapes = _Shapes(function)
    hidden_cases = _Hidden(list(exclude))
    first: list[_Plan] = []
    pools: list[list[_Plan]] = [_pool(shapes, None, frozenset(), budget)]
    for seed, hidden in seeds[:MAX_SEEDS]:
        first += _box_plans(shapes, seed) + _large_plans(shapes, seed, hidden)
        pools += [_pool(shapes, seed, subset, budget) for subset in _subsets(seed.features)]
    chosen: dict[str, Candidate] = {}
    seen: set = set()
    for plan in itertools.chain(first, heapq.merge(*pools, key=lambda p: p.size)):
        if (plan.lengths, plan.features, plan.large) in seen:
            continue
        seen.add((plan.lengths, plan.features, plan.large))
        made = _materialize(shapes, plan)
        if made.key in chosen or hidden_cases.holds(made):
            continue
        chosen[made.key] = made
        if len(chosen) >= budget:
            break
    return sorted(chosen.values(), key=lambda c: c.size)


# -- materializing: the plan's arguments in case syntax -----------------------------------------------------------


def _materialize(shapes: _Shapes, plan: _Plan) -> Candidate:
    function, domain = shapes.function, shapes.domain
    keep = {(name, what): value for name, what, value in plan.features}
    args: dict[str, Any] = {}
    for name, arg in domain.args.items():
        if isinstance(arg, IntDomain):
            args[name] = plan.lengths[shapes.index[name]]
        elif isinstance(arg, FloatDomain):
            args[name] = keep.get((name, "value"), plain_scalar(function, name, arg))
        else:
            shape = shapes.shape(name, plan.lengths, keep)
            bounds = arg.array.values
            if arg.array.indexes is not None:  # indices into another argument's axis: below its length
                other, axis = arg.array.indexes.split(".", 1)
                top = plan.lengths[shapes.index[length_key(domain, other, axis)]] - 1
                bounds = (bounds[0], min(bounds[1], top))
            phase = list(domain.args).index(name)  # arrays of one call get different steps (gamma is not beta)
            args[name] = None if shape is None else _array_arg(arg, shape, keep, name, plan.large, bounds, phase)
    return Candidate(function.name, args, plan.size, json.dumps(args, sort_keys=True))


def _array_arg(arg: ArrayDomain, shape: tuple[int, ...], keep: dict, name: str, large: bool,
               bounds: tuple[float, float], phase: int = 0) -> dict[str, Any]:
    a = arg.array
    dtype = keep.get((name, "dtype"), a.dtypes[0])
    fill = keep.get((name, "fill"), "arange" if a.integer else "steps")
    out: dict[str, Any]
    if large:  # one line of numpy, not its values: zeros, or positions 0, 1, 2, ...
        lo, hi = bounds
        plain = "arange" if a.integer and math.prod(shape) - 1 <= hi else "zeros" if lo <= 0 <= hi else "ones"
        out = {"generate": {"shape": list(shape), "distribution": plain, "dtype": dtype}}
    else:
        out = {"literal": _fill(bounds, a.integer, fill, shape, dtype, phase).tolist(), "dtype": dtype}
    layout = keep.get((name, "layout"), a.layouts[0])
    if layout != "c":
        out["layout"] = layout
    if keep.get((name, "readonly"), a.readonly[0]):
        out["readonly"] = True
    return out


def _fill(bounds: tuple[float, float], integer: bool, fill: str, shape: tuple[int, ...], dtype: str,
          phase: int = 0) -> np.ndarray:
    """An array's values, from its fill alone: never a failing case's own values (a hidden case's inputs are
    never shown, not even in part)."""
    lo, hi = bounds
    n = math.prod(shape)
    k = np.arange(n)
    if dtype == "bool":  # a mask: mostly True, every third False; "blocked": its first row all False too
        values = k % 3 != 1
        if fill == "blocked" and shape:
            values[:shape[-1]] = False
        return values.reshape(shape)
    if integer:  # positions: ascending, descending, far out, or each twice
        base = {"reversed": k[::-1], "far": hi - k, "repeated": k // 2}.get(fill, k)
        values = np.clip(base, lo, hi)
    elif fill == "wide":  # large magnitudes, both signs, across the domain's range
        values = np.clip(np.where(k % 2, hi, lo) * (1 - 0.125 * (k % 4)), lo, hi)
    else:  # steps: -1.25, -0.75, -0.25, ... : readable, never all equal, never all zero (the phase: the
        # argument's place in the call, so that two arrays of one call differ)
        values = np.clip((((k + 3 * phase) % 7) - 3) * 0.5 + 0.25, lo, hi)
    return values.astype(dtype).reshape(shape)


class _Hidden:
    """The hidden cases' arguments, to be told apart from a candidate quickly (by shapes and scalars first)."""

    def __init__(self, cases: list[dict[str, Any]]) -> None:
        self.by_outline: dict[tuple, list[dict[str, Any]]] = {}
        for values in cases:
            self.by_outline.setdefault(_outline(values), []).append(values)

    def holds(self, candidate: Candidate) -> bool:
        from judge.problem.inputs import materialize

        values = materialize(candidate.args)
        return any(all(_same(values[k], other[k]) for k in values)
                   for other in self.by_outline.get(_outline(values), ()))


def _outline(values: dict[str, Any]) -> tuple:
    return tuple(sorted((k, (v.shape, v.dtype.str) if isinstance(v, np.ndarray) else repr(v))
                        for k, v in values.items()))


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.shape == b.shape \
            and a.dtype == b.dtype and np.array_equal(a, b)
    return a == b


__all__ = ["Candidate", "MAX_ELEMENTS", "candidates", "size_of"]
