"""What a failing case tells the counterexample search: its lengths, its features, and where it went wrong.

A *length* is one size a call chooses: an int argument (``d_model``) or a named axis of an array argument
(``x.row``; an axis the domain ties to another argument's, such as ``positions.row``, follows it).  A *feature*
is something the failing case has that the smallest valid input has not: a non-default scalar, a given optional
array, leading axes, a second dtype or layout, a read-only array, telling values (large, unsorted, repeated).
The *box* is, per length, the smallest length that still holds one of the case's out-of-tolerance elements: a
shrink to those lengths keeps the place where the learner's output went wrong.

A seed never carries a hidden case's values: its features are properties (a dtype, "large values"), a hidden
case's non-default scalar is replaced by the domain's simple value, and its lengths only bound the search.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import numpy as np

from judge.problem.models import ArrayDomain, Domain, FloatDomain, FunctionSpec, IntDomain, Tolerance

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


@dataclass(frozen=True)
class Seed:
    """A failing case as the search sees it."""

    lengths: dict[str, int]  #: the case's own value of every length
    features: tuple[Feature, ...]
    box: dict[str, int]  #: per length, the smallest value that holds one of its wrong elements (when known)


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


def _shown_scalar(function: FunctionSpec, name: str, arg: FloatDomain, value: Any, hidden: bool) -> Any:
    """A non-default scalar as a candidate may carry it: a public case's own, a hidden case's replaced by the
    domain's first simple value other than the default (the value itself is part of what a hidden case hides)."""
    if not hidden:
        return value
    default = default_of(function, name)
    simple = [v for v in arg.simple if v != default]
    return simple[0] if simple else arg.float[0] if arg.float[0] != default else arg.float[1]


def read_seed(function: FunctionSpec, values: dict[str, Any], layouts: dict[str, str], readonly: dict[str, bool],
              hidden: bool, box: dict[str, int] | None = None) -> Seed:
    """The seed of one failing case (``values``: its arguments as the call gets them)."""
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
                features.append((name, "value", _shown_scalar(function, name, arg, value, hidden)))
        elif value is not None:
            features += _array_features(domain, name, arg, np.asarray(value), layouts.get(name, "c"),
                                        readonly.get(name, False), lengths)
    return Seed(lengths, tuple(features), dict(box or {}))


def explorer(function: FunctionSpec, top: int) -> Seed:
    """A seed made from the domain alone, for a search no failing case seeds (an author's question: does any
    valid input catch this?): lengths up to ``top``, and every feature the domain allows -- a simple non-default
    value of each float, a leading axis, each other dtype and layout, a read-only array, a given optional one."""
    domain = function.domain
    assert domain is not None
    lengths = {length.key: min(length.hi, max(length.lo, top)) for length in lengths_of(domain)}
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
    return Seed(lengths, tuple(features), {})


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


def mismatch_box(function: FunctionSpec, values: dict[str, Any], expected: np.ndarray, got: np.ndarray | None,
                 tolerance: Tolerance) -> dict[str, int]:
    """Per length, how long it must be to hold the case's "first" wrong element: the out-of-tolerance element
    (over the output's named axes, any leading index) whose index box (i+1)(j+1)... is smallest.  Output axes
    map to lengths by name (an array's axis called like the output's) or, for ints, by being the only argument
    equal to that axis's length.  Empty when the output's shape is not the expected one."""
    domain = function.domain
    if domain is None or got is None or got.shape != expected.shape or expected.ndim == 0:
        return {}
    named = len(function.axes) or expected.ndim
    named = min(named, expected.ndim)
    with np.errstate(invalid="ignore", over="ignore"):
        wrong = ~(np.abs(got.astype(np.float64) - expected) <= tolerance.atol + tolerance.rtol * np.abs(expected))
    if wrong.ndim > named:
        wrong = wrong.reshape((-1,) + wrong.shape[-named:]).any(axis=0)
    where = np.argwhere(wrong)
    if where.size == 0:
        return {}
    first = where[int(np.argmin(np.prod(where + 1, axis=1, dtype=np.float64)))]
    box: dict[str, int] = {}
    for i, index in enumerate(first):
        key = _length_of_output_axis(function, domain, values, i, named, expected.shape[expected.ndim - named + i])
        if key is not None:
            box[key] = int(index) + 1
    return box


def _length_of_output_axis(function: FunctionSpec, domain: Domain, values: dict[str, Any], i: int, named: int,
                           n: int) -> str | None:
    name = function.axes[i].name if len(function.axes) == named else None
    for arg_name, arg in domain.args.items():
        if isinstance(arg, ArrayDomain) and name in arg.array.axes and name not in arg.array.match:
            return f"{arg_name}.{name}"
    ints = [k for k, arg in domain.args.items() if isinstance(arg, IntDomain) and values.get(k) == n]
    return ints[0] if len(ints) == 1 else None
