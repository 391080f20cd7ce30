"""The inputs a counterexample search tries, from a function's input domain: small ones first, deterministic.

Hypothesis' shrinker is the model, but its rounds adapt to each answer and this search must fit one sandboxed
run, so the rounds are laid out in advance, from the seeds (:mod:`.seeds`), each a *pool* of plans:

- the smallest valid inputs: every length a few steps from its anchor (the value of least magnitude), default
  scalars, the first dtype and layout, no leading axes;
- shrinks of each seed: its features kept whole, one left out, one alone or none (the domain's seed: all, each
  alone, none), each at a ladder of lengths -- for a case's seed from the anchor up to the case's own, for the
  domain's seed the generic ladder (the nearest few, then both parities at every power of two);
- for the domain's seed, each length alone up the generic ladder's rungs (the others resting at the smallest
  public case's lengths): what goes wrong only from some length on shows at the first rung past it;
- large inputs, for mistakes no small input shows (float32 error that grows with the position): a case's own
  lengths and features and its lengths halved again and again, or the domain's largest shapes.

The large candidates and each case's own come first; then the pools' plans in turn (every pool's smallest,
then every pool's second, ...) until the budget is spent, so each shrink gets its share however many tiny
inputs another has; the candidates are then tried smallest first.  A candidate is a set of arguments in the
bundle's case syntax (``judge case add`` accepts them as they are) with a *size*, its place in that order: its
elements (every array's plus the product of the ints' magnitudes) times one more than the features it keeps (a
plain input is simpler than a smaller one that is read-only, float32 and batched), then its elements, leading
axes and features alone.  Nothing here reads unseeded randomness, and nothing here reads a hidden case: the
same seeds give the same candidates on every machine.  The work is bounded whatever the domain says: every
ladder is logarithmic in its range, pools are made lazily (best first) and stop at :data:`MAX_PLANS`, every
product of ladders is trimmed to it, and a ``stop`` callable (the search's clock) ends the making early.
"""

from __future__ import annotations

import heapq
import itertools
import json
import math
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from judge.diagnosis.counterexample.seeds import (
    SMALL_OFFSETS,
    Feature,
    Length,
    Seed,
    generic_ladder,
    length_key,
    lengths_of,
    plain_scalar,
)
from judge.problem.models import ArrayDomain, Domain, FloatDomain, FunctionSpec, IntDomain

#: Steps from a length's anchor the smallest inputs try (anchor, anchor+1, ... anchor+SMALL_STEPS).
SMALL_STEPS = 3
#: Elements a candidate may have at most (its values are shown in full).
MAX_ELEMENTS = 512
#: How many values from its anchor a case's ladder climbs in steps of one (then the generic rungs).
LADDER_TOP = 8
#: Failing cases a search starts from (the smallest ones).
MAX_SEEDS = 3
#: Large candidates per seed, for mistakes no small input shows (float32 error that grows with the
#: position): zeros (positions: 0, 1, 2, ...) that ``np.zeros`` writes in one line, never shown in full.
LARGE_PER_SEED = 4
#: Elements a large candidate may have at most.
LARGE_MAX_ELEMENTS = 1 << 18
#: Elements a large candidate of the domain's seed may have at most (no case says a larger one is needed).
DOMAIN_LARGE_ELEMENTS = 1 << 16
#: Combinations of lengths one pool or one seed's large plans look at, at most.
MAX_PLANS = 4096


@dataclass(frozen=True)
class Candidate:
    """One input to try: ``args`` in case syntax, ``size`` its place in the search's order."""

    function: str
    args: dict[str, Any] = field(hash=False)
    size: tuple = field(hash=False)
    key: str = ""  #: a canonical text of the arguments (equal candidates have equal keys)


def _magnitude(ints: Iterable[int]) -> int:
    """The ints' share of a call's size: the product of their magnitudes (an ``axis=-1`` is as small as 1)."""
    values = [abs(int(v)) for v in ints]
    return math.prod(values) if values else 0


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
    return elements + _magnitude(ints)


# -- plans: a candidate before its values are made, cheap to build and order ------------------------------------


def _kept(features: frozenset) -> dict:
    """(argument, what) -> value of the features a plan keeps.  Two of one kind (the domain's seed has every
    layout) are taken in a fixed order, the last winning: a frozenset's own order changes with the process's
    string hashing, and a candidate must not."""
    return {(name, what): value for name, what, value in sorted(features, key=repr)}


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
        if arg.optional and not any(key[0] == name for key in keep):  # any feature of it means it is given
            return None
        a = arg.array
        owner = name
        if a.leading_like is not None:  # the leading axes of another argument, exactly
            owner, a = a.leading_like, self.domain.args[a.leading_like].array  # type: ignore[union-attr]
        lead = (keep.get((owner, "lead_size"), a.leading_size[0]),) * keep.get((owner, "lead"), a.leading[0])
        return lead + tuple(lengths[i] for i in self.axes[name])

    def plan(self, lengths: tuple[int, ...], features: frozenset, large: bool = False,
             most: int | None = None) -> _Plan | None:
        keep = _kept(features)
        elements, leading = 0, 0
        most = most or (LARGE_MAX_ELEMENTS if large else MAX_ELEMENTS)
        for name, arg in self.domain.args.items():
            if isinstance(arg, ArrayDomain):
                shape = self.shape(name, lengths, keep)
                if shape is not None:
                    elements += math.prod(shape)
                    leading += len(shape) - len(arg.array.axes)
                    if elements > most:
                        return None
        product = _magnitude(lengths[i] for i in self.ints)
        if product > most:  # ints: the product stands for the output's size
            return None
        weighted = (elements + product) * (1 + len(features))  # a feature costs as much as the elements it needs
        return _Plan((weighted, elements + product, leading, len(features), lengths,
                      tuple(sorted(map(repr, features)))), lengths, features, large)


def _trimmed(ladders: list[list[int]], most: int = MAX_PLANS) -> list[list[int]]:
    """The ladders with their farthest rungs dropped, longest ladder first, until their product is at most
    ``most``: a function with many lengths costs no more than one with two."""
    ladders = [list(ladder) for ladder in ladders]
    while math.prod(len(ladder) for ladder in ladders) > most:
        longest = max(range(len(ladders)), key=lambda i: len(ladders[i]))
        ladders[longest].pop()
    return ladders


def _ladder(length: Length, seed: Seed | None) -> list[int]:
    """Values to try for one length, nearest the anchor first (:attr:`.seeds.Length.anchor`).  Without a seed:
    the nearest few.  A case's seed: the nearest few toward the case's own value, the nearest with its parity,
    every value a few steps on, the generic ladder's rungs short of it, and its own; never past it.  The
    domain's seed: the generic ladder."""
    if seed is not None and seed.from_domain:
        return generic_ladder(length.lo, length.hi)
    anchor = length.anchor
    own = seed.lengths.get(length.key) if seed is not None else None
    if own is None:
        values = {anchor + side * o for o in range(SMALL_STEPS + 1) for side in (1, -1)}
    else:
        side, reach = length.toward(own)
        offsets = set(range(SMALL_STEPS + 1)) | {reach % 2, 2 + reach % 2, reach} | set(range(LADDER_TOP))
        offsets |= {abs(v - anchor) for v in generic_ladder(length.lo, length.hi) if (v - anchor) * side >= 0}
        values = {anchor + side * o for o in offsets if o <= reach}
    return sorted((v for v in values if length.lo <= v <= length.hi), key=lambda v: abs(v - anchor))


def _pool(shapes: _Shapes, seed: Seed | None, features: frozenset, stop: Callable[[], bool]) -> Iterator[_Plan]:
    """The plans with these features over the lengths' ladders, smallest first, made only as they are taken:
    best-first from every length's smallest rung (a plan's size grows with each length, so the next smallest is
    always one rung up from one already taken; with a negative range it is nearly so)."""
    ladders = [_ladder(length, seed) for length in shapes.lengths]
    if any(not ladder for ladder in ladders):
        return
    start = (0,) * len(ladders)
    heap: list[tuple[tuple, tuple[int, ...], _Plan]] = []
    seen = {start}

    def push(at: tuple[int, ...]) -> None:
        plan = shapes.plan(tuple(ladder[i] for ladder, i in zip(ladders, at)), features)
        if plan is not None:  # too large: so is every plan further up
            heapq.heappush(heap, (plan.size, at, plan))

    push(start)
    taken = 0
    while heap and taken < MAX_PLANS and not stop():
        _, at, plan = heapq.heappop(heap)
        taken += 1
        yield plan
        for i in range(len(at)):
            up = at[:i] + (at[i] + 1,) + at[i + 1:]
            if up[i] < len(ladders[i]) and up not in seen:
                seen.add(up)
                push(up)


def _climb(shapes: _Shapes, seed: Seed, index: int) -> Iterator[_Plan]:
    """One length up the generic ladder's rungs past the nearest few (both parities at every power of two),
    every other length resting where the domain's seed says (the smallest public case's, or its anchor), no
    feature: for what goes wrong only from some length on, whatever length that is."""
    length = shapes.lengths[index]
    rest = [min(other.hi, max(other.lo, seed.rest.get(other.key, other.anchor))) for other in shapes.lengths]
    for rung in generic_ladder(length.lo, length.hi):
        if abs(rung - length.anchor) < SMALL_OFFSETS - 1:  # the nearer ones are every pool's
            continue
        rest[index] = rung
        plan = shapes.plan(tuple(rest), frozenset())
        if plan is None:
            return  # too large: so is every rung further out
        yield plan


def _halvings(length: Length, own: int) -> list[int]:
    """``own``, then halfway to the anchor again and again, each at ``own``'s parity where that stays short of
    it: log2 of the distance values, whatever the sign of either."""
    side, gap = length.toward(own)
    values = {own}
    while gap > 0:
        gap //= 2
        v = length.anchor + side * gap
        values.add(v + side * (abs(own - v) % 2))
    return sorted(values, key=lambda v: abs(v - length.anchor))


def _spread(plans: list[_Plan], count: int) -> list[_Plan]:
    """``count`` plans spread over ``plans`` by their elements, geometrically, the largest last: from just above
    the small candidates' size to the largest."""
    if not plans:
        return []
    plans.sort(key=lambda p: p.size)
    top = math.log(max(p.size[1] for p in plans))
    low = math.log(MAX_ELEMENTS)
    picks = []
    for k in range(1, count + 1):
        target = low + (top - low) * k / count
        picks.append(min(plans, key=lambda p: (abs(math.log(p.size[1]) - target), p.size)))
    return list(dict.fromkeys(picks))


def _large_plans(shapes: _Shapes, seed: Seed, stop: Callable[[], bool]) -> list[_Plan]:
    """For what only inputs larger than any small candidate show: a case's lengths halved again and again (its
    parity kept) with all its features, a few sizes spread from just above the small ones up to its own.  For
    the domain's seed (no case to start from), :func:`_domain_large`."""
    if seed.from_domain:
        return _domain_large(shapes, seed, stop)
    ladders = _trimmed([_halvings(length, seed.lengths.get(length.key, length.anchor)) for length in shapes.lengths])
    plans = []
    for lengths in itertools.product(*ladders):
        plan = shapes.plan(lengths, frozenset(seed.features), large=True)
        if plan is not None and plan.size[1] > MAX_ELEMENTS:
            plans.append(plan)
        if len(plans) % 256 == 0 and stop():
            break
    return _spread(plans, LARGE_PER_SEED)


def _domain_large(shapes: _Shapes, seed: Seed, stop: Callable[[], bool]) -> list[_Plan]:
    """The domain's large inputs, up to :data:`DOMAIN_LARGE_ELEMENTS`: every feature at once in the largest
    shape the generic ladder gives and in one of about the geometric middle between it and the small ones (the
    most even shape of each size), and each length alone at the farthest rung that fits, the others at rest
    (what goes wrong only from some length on, past the small ones)."""
    ladders = _trimmed([generic_ladder(length.lo, length.hi) for length in shapes.lengths])
    whole = frozenset(seed.features)
    plans = []
    for k, lengths in enumerate(itertools.product(*ladders)):
        plan = shapes.plan(lengths, whole, large=True, most=DOMAIN_LARGE_ELEMENTS)
        if plan is not None and plan.size[1] > MAX_ELEMENTS:
            plans.append(plan)
        if k % 256 == 0 and stop():
            break
    out = []
    if plans:
        top = max(math.log(p.size[1]) for p in plans)
        for target in ((math.log(MAX_ELEMENTS) + top) / 2, top):  # within a factor 2 of each, the most even
            out.append(min(plans, key=lambda p: (math.floor(abs(math.log(p.size[1]) - target) / math.log(2)),
                                                 max(map(abs, p.lengths)), abs(math.log(p.size[1]) - target),
                                                 p.size)))
    rest = [min(length.hi, max(length.lo, seed.rest.get(length.key, length.anchor))) for length in shapes.lengths]
    for i, ladder in enumerate(ladders):
        for rung in reversed(ladder):  # farthest first
            lengths = tuple(rest[:i] + [rung] + rest[i + 1:])
            plan = shapes.plan(lengths, frozenset(), large=True, most=DOMAIN_LARGE_ELEMENTS)
            if plan is not None:
                if plan.size[1] > MAX_ELEMENTS:
                    out.append(plan)
                break
    return list(dict.fromkeys(out))


def _subsets(features: tuple[Feature, ...], from_domain: bool = False) -> list[frozenset]:
    """Which features a shrink keeps: all, all but one, each alone, none (every subset when there are few).
    The domain's seed has every feature the domain allows, which no one input needs together: all, each alone,
    none."""
    if from_domain:
        whole = frozenset(features)
        return list(dict.fromkeys([whole] + [frozenset([f]) for f in features] + [frozenset()]))
    if len(features) <= 3:
        chosen = [frozenset(c) for k in range(len(features), -1, -1) for c in itertools.combinations(features, k)]
    else:
        whole = frozenset(features)
        chosen = [whole] + [whole - {f} for f in features] + [frozenset([f]) for f in features] + [frozenset()]
    return list(dict.fromkeys(chosen))


def _in_turn(pools: list[Iterator[_Plan]]) -> Iterator[_Plan]:
    """Every pool's smallest plan, then every pool's second, ...: each shrink gets its share of the budget, however
    many small plans another one has."""
    live = list(pools)
    while live:
        for pool in list(live):
            plan = next(pool, None)
            if plan is None:
                live.remove(pool)
            else:
                yield plan


def _never() -> bool:
    return False


def candidates(function: FunctionSpec, seeds: list[Seed], budget: int, exclude: Iterable[dict[str, Any]] = (),
               stop: Callable[[], bool] = _never) -> list[Candidate]:
    """At most ``budget`` candidates for ``function`` (which has a domain), smallest first.  ``seeds``: where
    the search starts (cases the searcher may see, smallest first, and the domain's own seed); ``exclude``:
    argument values no candidate may equal (an author's search proposes no case the bundle has); ``stop``:
    True once the search's time for making candidates is over (those made so far are kept)."""
    shapes = _Shapes(function)
    excluded = _Excluded(list(exclude))
    first: list[_Plan] = []
    pools: list[Iterator[_Plan]] = [_pool(shapes, None, frozenset(), stop)]
    for seed in seeds[:MAX_SEEDS + 1]:
        if stop():
            break
        if not seed.from_domain:  # the case's own lengths and features: a shrink of nothing, likely to fail too
            own = shapes.plan(tuple(seed.lengths.get(length.key, length.anchor) for length in shapes.lengths),
                              frozenset(seed.features))
            first += [own] if own is not None else []
        first += _large_plans(shapes, seed, stop)
        pools += [_pool(shapes, seed, subset, stop) for subset in _subsets(seed.features, seed.from_domain)]
        if seed.from_domain:  # the lengths' climbs take one turn between them: one rung of each in turn
            pools.append(_in_turn([_climb(shapes, seed, i) for i in range(len(shapes.lengths))]))
    chosen: dict[str, Candidate] = {}
    seen: set = set()
    for plan in itertools.chain(first, _in_turn(pools)):
        if (plan.lengths, plan.features, plan.large) in seen:
            continue
        seen.add((plan.lengths, plan.features, plan.large))
        made = _materialize(shapes, plan)
        if made.key in chosen or excluded.holds(made):
            continue
        chosen[made.key] = made
        if len(chosen) >= budget or (len(chosen) % 16 == 0 and stop()):
            break
    return sorted(chosen.values(), key=lambda c: c.size)


# -- materializing: the plan's arguments in case syntax -----------------------------------------------------------


def _materialize(shapes: _Shapes, plan: _Plan) -> Candidate:
    function, domain = shapes.function, shapes.domain
    keep = _kept(plan.features)
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
    """An array's values, from its fill alone: never a case's own values (a candidate is made, never copied)."""
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


class _Excluded:
    """Argument values no candidate may equal, told apart from a candidate quickly (by shapes and scalars first)."""

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
