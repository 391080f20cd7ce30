"""Where a counterexample search starts: a case the learner may see, or the function's input domain itself.

A *length* is one size a call chooses: an int argument (``d_model``) or a named axis of an array argument
(``x.row``; an axis the domain ties to another argument's, such as ``positions.row``, follows it).  A *feature*
is something an input has that the smallest valid input has not: a non-default scalar, a given optional array,
leading axes, a second dtype or layout, a read-only array, telling values (large, unsorted, repeated).

A *seed* is read from a failing case the learner may see (a public one; for an author, any case): its lengths
bound the shrinks and its features are kept or dropped.  A hidden case never seeds a learner's search, not even
by a property (its dtype, its size): when hidden cases fail, the search starts from the domain instead
(:func:`explorer`), whose seed has every feature the domain allows and no lengths of its own (the search then
climbs a generic ladder of lengths, :func:`generic_ladder`).  Whatever a hidden case holds, the candidates are
the same.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from judge.problem.models import ArrayDomain, Domain, FloatDomain, FunctionSpec, IntDomain

#: (argument, what, value): what is one of value, given, lead, lead_size, dtype, layout, readonly, fill.
Feature = tuple[str, str, Any]


@dataclass(frozen=True)
class Length:
    """One length a candidate chooses: an int argument or an array's own named axis."""

    key: str  #: ``d_model`` or ``x.row``
    arg: str
    axis: str | None
    lo: int
    hi: int

    @property
    def anchor(self) -> int:
        """Its smallest value: the one of least magnitude (the lower bound of a length; 0 in ``[-5, 3]``, -1 in
        ``[-1, -1]``), where every ladder starts."""
        return min(max(0, self.lo), self.hi)

    def toward(self, own: int) -> tuple[int, int]:
        """(the side ``own`` lies on from the anchor, +1 or -1; how far): a ladder toward a case's own value."""
        return (1 if own >= self.anchor else -1), abs(own - self.anchor)


@dataclass(frozen=True)
class Seed:
    """A failing case as the search sees it, or the domain's own seed (no lengths: the generic ladder)."""

    lengths: dict[str, int]  #: the case's own value of every length; empty for the domain's seed
    features: tuple[Feature, ...]
    rest: dict[str, int] = field(default_factory=dict)  #: the domain's seed: where lengths rest while one climbs

    @property
    def from_domain(self) -> bool:
        return not self.lengths


def lengths_of(domain: Domain) -> list[Length]:
    """The domain's lengths, in argument order."""
    out = []
    for name, arg in domain.args.items():
        if isinstance(arg, IntDomain):
            out.append(Length(name, name, None, arg.int[0], arg.int[1]))
        elif isinstance(arg, ArrayDomain):
            for axis, (lo, hi) in arg.array.axes.items():
                if axis not in arg.array.match:
                    out.append(Length(f"{name}.{axis}", name, axis, lo, hi))
    return out


#: Values above a length's lower bound every generic ladder holds (lo, lo+1, ... lo+SMALL_OFFSETS-1).
SMALL_OFFSETS = 8


def generic_ladder(lo: int, hi: int) -> list[int]:
    """The values a search tries where no case it may see bounds it, from the one of least magnitude (the
    anchor: the lower bound of a length) outward: the nearest few, then both parities at every power of two
    (anchor +- (2^k - 1) and +- 2^k), and both ends; within [lo, hi], nearest first.  About 4 log2(hi-lo)
    values whatever the range, so a huge or negative range costs no more than a small one."""
    anchor = min(max(0, lo), hi)
    offsets = set(range(SMALL_OFFSETS))
    step = SMALL_OFFSETS
    while step <= hi - lo:
        offsets |= {step - 1, step}
        step *= 2
    values = {anchor + side * o for o in offsets for side in (1, -1)} | {lo, hi}
    return sorted((v for v in values if lo <= v <= hi), key=lambda v: (abs(v - anchor), v))


def length_key(domain: Domain, arg: str, axis: str) -> str:
    """The length an array's axis takes: its own, or the one its ``match`` ties it to."""
    owner = domain.args[arg].array.match.get(axis)  # type: ignore[union-attr]
    return f"{owner}.{axis}" if owner else f"{arg}.{axis}"


def default_of(function: FunctionSpec, name: str) -> Any:
    """The default a parameter has in the function's signature, or None."""
    return _defaults(function.signature).get(name)


@functools.lru_cache(maxsize=64)
def _defaults(signature: str) -> dict[str, Any]:
    import ast

    try:
        fn = ast.parse(f"def f{signature[signature.index('('):]}: pass").body[0]
    except (SyntaxError, ValueError):
        return {}
    args = fn.args.args  # type: ignore[attr-defined]
    out = {}
    for arg, node in zip([a.arg for a in args[len(args) - len(fn.args.defaults):]], fn.args.defaults):  # type: ignore[attr-defined]
        try:
            out[arg] = ast.literal_eval(node)
        except ValueError:
            continue
    return out


def plain_scalar(function: FunctionSpec, name: str, arg: FloatDomain) -> float:
    """The value a float argument takes when it is no feature: its default, else its first simple value."""
    default = default_of(function, name)
    if default is not None:
        return default
    return arg.simple[0] if arg.simple else arg.float[0]


def read_seed(
    function: FunctionSpec, values: dict[str, Any], layouts: dict[str, str], readonly: dict[str, bool]
) -> Seed:
    """The seed of one failing case the searcher may see (``values``: its arguments as the call gets them)."""
    domain = function.domain
    assert domain is not None
    lengths: dict[str, int] = {}
    features: list[Feature] = []
    for name, arg in domain.args.items():
        value = values.get(name, default_of(function, name))
        if isinstance(arg, IntDomain):
            if isinstance(value, (int, np.integer)):
                lengths[name] = int(value)
        elif isinstance(arg, FloatDomain):
            if value is not None and value != default_of(function, name):
                features.append((name, "value", value))
        elif value is not None:
            features += _array_features(domain, name, arg, np.asarray(value), layouts.get(name, "c"),
                                        readonly.get(name, False), lengths)
    return Seed(lengths, tuple(features))


def explorer(function: FunctionSpec, rest: dict[str, int] | None = None) -> Seed:
    """The domain's own seed, for what no case the searcher may see seeds (failing hidden cases, or an author's
    question: does any valid input catch this?): no lengths (the search climbs :func:`generic_ladder`), and
    every feature the domain allows -- a simple non-default value of each float, a leading axis, each other
    dtype and layout, a read-only array, a given optional one, values that tell (far integers, wide floats).
    ``rest``: the lengths the others keep while one climbs the ladder (a public case's, say)."""
    domain = function.domain
    assert domain is not None
    features: list[Feature] = []
    for name, arg in domain.args.items():
        if isinstance(arg, FloatDomain):
            simple = [v for v in arg.simple if v != default_of(function, name)]
            if simple:
                features.append((name, "value", simple[0]))
        elif isinstance(arg, ArrayDomain):
            a = arg.array
            if arg.optional:
                features.append((name, "given", True))
            if a.leading[1] > a.leading[0] and a.leading_like is None:
                features.append((name, "lead", a.leading[0] + 1))
            if a.dtypes[0] == "bool":
                features.append((name, "fill", "blocked"))
            features += [(name, "dtype", d) for d in a.dtypes[1:2]] + [(name, "layout", lay) for lay in a.layouts[1:3]]
            if True in a.readonly and not a.readonly[0]:
                features.append((name, "readonly", True))
            if a.integer and a.values[1] > a.values[0]:
                features.append((name, "fill", "far"))  # not 0, 1, 2, ...: values that tell
            elif not a.integer and max(abs(a.values[0]), abs(a.values[1])) > 2.0:
                features.append((name, "fill", "wide"))
    return Seed({}, tuple(features), dict(rest or {}))


def _array_features(domain: Domain, name: str, arg: ArrayDomain, array: np.ndarray, layout: str, readonly: bool,
                    lengths: dict[str, int]) -> list[Feature]:
    a = arg.array
    features: list[Feature] = []
    if arg.optional:
        features.append((name, "given", True))
    lead = array.ndim - len(a.axes)
    if lead >= 0:
        for axis, n in zip(a.axes, array.shape[lead:]):
            lengths.setdefault(length_key(domain, name, axis), int(n))
    if a.leading_like is None and lead > a.leading[0]:  # leading_like: the other argument's say
        features.append((name, "lead", min(lead, a.leading[1])))
    if a.leading_like is None and lead > 0 and max(array.shape[:lead]) > a.leading_size[0] \
            and a.leading_size[1] > a.leading_size[0]:
        features.append((name, "lead_size", a.leading_size[0] + 1))
    if array.dtype.name != a.dtypes[0] and array.dtype.name in a.dtypes:
        features.append((name, "dtype", array.dtype.name))
    if layout != a.layouts[0] and layout in a.layouts:
        features.append((name, "layout", layout))
    if readonly and True in a.readonly and not a.readonly[0]:
        features.append((name, "readonly", True))
    telling = _telling_fill(arg, array)
    if telling is not None:
        features.append((name, "fill", telling))
    return features


def _telling_fill(domain: ArrayDomain, array: np.ndarray) -> str | None:
    """What kind of values a failing case's array has, when it may matter: large ones, unsorted or repeated
    integers (positions).  A property, never the values themselves."""
    if array.size == 0:
        return None
    if array.dtype == np.bool_:  # a mask: whether some row (along its last axis) is all False
        return "blocked" if array.ndim and not array.reshape(-1, array.shape[-1]).any(axis=-1).all() else None
    if domain.array.integer:
        flat = array.reshape(-1)
        if flat.max() >= 1024:
            return "far"
        if np.any(np.diff(flat) < 0):
            return "reversed"
        if len(np.unique(flat)) < flat.size:
            return "repeated"
        return None
    return "wide" if max(abs(float(array.max())), abs(float(array.min()))) > 2.0 else None
