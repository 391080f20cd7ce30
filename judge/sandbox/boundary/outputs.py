"""What a call returned, as the one numeric array a result slot holds: an array, a number, or a tuple of them.

A bundle's function says what it returns (``returns:`` in problem.yaml): ``array`` (an exact numpy.ndarray),
``scalar`` (one number: a Python int or float, a numpy number, or a 0-d array) or ``tuple:<k>`` (a tuple of k
arrays or numbers, e.g. the three gradients of a linear layer).  The same :func:`pack` runs in the harness on
the learner's value and in the judge's process on the reference's and the bank's, so both sides are compared
in one form: a tuple's items are laid one after another (each raveled, in C order) in one array of their common
dtype, and the items' shapes and dtypes travel beside it (:class:`Packed`), so the judge checks each item's
shape and dtype and names the item where values differ.

Runs next to untrusted code in the harness: it looks at exact types only (``type(x) is``), calls nothing the
learner's objects define, and reports anything else as a description (:class:`NotAnOutput`), never raising
past it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

ARRAY, SCALAR, TUPLE = "array", "scalar", "tuple"
_NUMERIC_KINDS = "iuf"
#: Python and numpy number types a ``scalar`` (or a tuple item) may be; bool is not a number here.
_NUMBERS = (int, float, np.float64, np.float32, np.float16, np.int64, np.int32, np.int16, np.int8,
            np.uint64, np.uint32, np.uint16, np.uint8)
_ndarray = np.ndarray
_type = type


class NotAnOutput(Exception):
    """The value is not what the function must return; ``str()`` says what it is instead."""


@dataclass(frozen=True)
class Packed:
    """A call's output as one array: ``parts`` (shape, dtype name) of each tuple item, None for an array or a
    number (then ``values`` is the output itself)."""

    values: np.ndarray
    parts: tuple[tuple[tuple[int, ...], str], ...] | None = None

    @property
    def part_shapes(self) -> tuple[tuple[int, ...], ...] | None:
        return None if self.parts is None else tuple(shape for shape, _ in self.parts)


def kind_of(returns: str) -> tuple[str, int]:
    """(array|scalar|tuple, how many items) from a wire ``returns`` (``tuple:3``)."""
    if returns.startswith(TUPLE + ":"):
        return TUPLE, int(returns.split(":", 1)[1])
    return (SCALAR, 0) if returns == SCALAR else (ARRAY, 0)


def describe(value: Any) -> str:
    """What a value is, in a learner's words (exact types only: a subclass may lie about itself)."""
    kind = _type(value)
    if issubclass(kind, _ndarray):
        shape = _ndarray.shape.__get__(value)  # the real shape, whatever the subclass overrides
        if kind is _ndarray:
            return f"a numpy.ndarray of dtype {value.dtype} and shape {shape}"
        return f"an instance of {kind.__module__}.{kind.__qualname__}, a subclass of numpy.ndarray (shape {shape})"
    if kind is bool or kind is np.bool_:
        return "a bool"
    if kind in (list, tuple) or issubclass(kind, tuple):
        n = len(value) if kind in (list, tuple) else tuple.__len__(value)
        return f"a {kind.__name__} of {n} item{'s' if n != 1 else ''}"
    return f"a value of type {kind.__module__}.{kind.__qualname__}".replace("builtins.", "")


def _number(value: object) -> np.ndarray | None:
    """A Python or numpy number as a 0-d array of its own dtype (Python floats and ints: float64, int64)."""
    if _type(value) in _NUMBERS:
        return np.asarray(value)
    return None


def _item(value: object, what: str) -> np.ndarray:
    """One tuple item (or a scalar's value): an exact numeric ndarray, or a number as a 0-d array."""
    if _type(value) is _ndarray:
        if value.dtype.kind not in _NUMERIC_KINDS or value.dtype.hasobject:
            raise NotAnOutput(f"{what} a numpy.ndarray of dtype {value.dtype}".strip())
        return value
    number = _number(value)
    if number is None:
        raise NotAnOutput(f"{what} {describe(value)}".strip())
    return number


def pack(value: Any, returns: str) -> Packed:
    """``value`` as the one array a slot holds (see the module's docstring); :class:`NotAnOutput` when it is not
    what ``returns`` asks for.  An array of the wrong shape is still an output: the judge says what is wrong."""
    kind, count = kind_of(returns)
    if kind == ARRAY:
        if _type(value) is not _ndarray:
            raise NotAnOutput(describe(value))
        if value.dtype.kind not in _NUMERIC_KINDS or value.dtype.hasobject:
            raise NotAnOutput(f"a numpy.ndarray of dtype {value.dtype}")
        return Packed(value)
    if kind == SCALAR:
        return Packed(_item(value, ""))
    vtype = _type(value)
    if vtype is list:
        items = list.copy(value)
    elif vtype is tuple or issubclass(vtype, tuple):
        items = [tuple.__getitem__(value, k) for k in range(tuple.__len__(value))]  # a namedtuple is a tuple
    else:
        raise NotAnOutput(f"{describe(value)}, not a tuple of {count}")
    if len(items) != count:
        raise NotAnOutput(f"a {vtype.__name__} of {len(items)} item{'s' if len(items) != 1 else ''}, not {count}")
    arrays = [_item(item, f"a {vtype.__name__} whose item {k} is") for k, item in enumerate(items)]
    dtype = np.result_type(*arrays)
    flat = np.concatenate([a.reshape(-1) for a in arrays]).astype(dtype, copy=False) if arrays else np.zeros(0)
    return Packed(flat, tuple((tuple(int(n) for n in a.shape), str(a.dtype)) for a in arrays))


def unpack(values: np.ndarray, shapes: tuple[tuple[int, ...], ...] | list | None) -> list[np.ndarray]:
    """A packed tuple's items again, each a view of ``values`` in its own shape (``shapes`` None: one array)."""
    if shapes is None:
        return [values]
    out, start = [], 0
    flat = values.reshape(-1)
    for shape in shapes:
        size = int(np.prod(shape, dtype=np.int64))
        out.append(flat[start:start + size].reshape(tuple(shape)))
        start += size
    return out


__all__ = ["NotAnOutput", "Packed", "describe", "kind_of", "pack", "unpack"]
