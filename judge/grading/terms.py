"""Locating elements of an output in the exercise's own terms.

The words come from the bundle: a function in problem.yaml may describe its
output's trailing axes (``axes: [{name: position, symbol: p}, {name: column,
symbol: j, pairs: [sin, cos]}]``).  Nothing here knows any particular exercise.
"""

from __future__ import annotations

import math

import numpy as np

from judge.feedback import MessageRef
from judge.i18n import messages as m
from judge.i18n.catalog import LIST, listed, render, spaced, verbatim, word
from judge.problem.models import AxisSpec, FunctionSpec, Tolerance
from judge.verdict import ValueWindow

ROWS_AROUND = 1      # rows either side of the worst one in a window
COLS_BEFORE, COLS_AFTER = 2, 1
CHUNK = 1 << 16


def plural(word: str) -> str:
    """An axis name in the plural: positions, queries, entries."""
    return word[:-1] + "ies" if word.endswith("y") and word[-2:-1] not in "aeiou" else word + "s"


class Terms:
    """How to talk about one function's output of a given shape."""

    def __init__(self, function: FunctionSpec | None, shape: tuple[int, ...],
                 parts: tuple[tuple[int, ...], ...] | None = None) -> None:
        """The one place that says which axes of ``shape`` are named: the function's ``axes`` name the
        trailing ones; whatever comes before them (``lead`` axes) is called ``leading_axes``.  ``parts``: for a
        function returning a tuple, each item's shape (``shape`` is then their values laid one after another,
        and an element is named by its item and its index in it: ``grad_w[2, 0]``)."""
        self.shape = tuple(shape)
        names = function.part_names if function is not None else None
        self.parts = tuple(tuple(p) for p in parts) if parts is not None and names is not None else None
        self.part_names = list(names) if self.parts is not None and names is not None else []
        if self.parts is not None:
            function = None  # the output's axes are the items', which have no names of their own
        axes = list(function.axes) if function is not None else []
        named = min(len(axes), len(self.shape))
        self.lead = len(self.shape) - named
        self.axes: list[AxisSpec] = axes[len(axes) - named:]
        self.leading_name = function.leading_axes if function is not None else "batch"

    def named_sizes(self) -> list[tuple[AxisSpec, int]]:
        """Each named axis with its length, outermost first."""
        return list(zip(self.axes, self.shape[self.lead:]))

    def size_text(self) -> str:
        """The shape in words: ``2 batch x 64 positions x 32 columns`` (a tuple: each item's shape)."""
        if self.parts is not None:
            return ", ".join(f"{n} {tuple(s)}".replace(",)", ")") for n, s in zip(self.part_names, self.parts))
        if not self.shape:
            return "one number"
        parts = [f"{n} {self.leading_name}" for n in self.shape[:self.lead]]
        parts += [f"{n} {plural(a.name) if n != 1 else a.name}" for a, n in self.named_sizes()]
        return " x ".join(parts) if parts else "x".join(map(str, self.shape)) or "scalar"

    def size_said(self) -> MessageRef:
        """:meth:`size_text` as message ids: the axes' names are the bundle's words (:func:`word`, in the form
        their count asks for), so the size reads in the learner's language; numbers and an item's name and
        shape are said as they are."""
        if self.parts is not None:
            return verbatim(self.size_text())
        if not self.shape:
            return m.SIZE_ONE_NUMBER()
        parts = [spaced([verbatim(str(n)), word(self.leading_name, n)]) for n in self.shape[:self.lead]]
        parts += [spaced([verbatim(str(n)), word(a.name, n, plural(a.name) if n != 1 else a.name)])
                  for a, n in self.named_sizes()]
        return MessageRef(id=LIST, params={"items": parts, "sep": " x "}) if parts else verbatim(self.size_text())

    def axis_label(self, axis: int) -> str:
        """A short header for an axis (negative counts from the end)."""
        axis %= len(self.shape)
        if axis < self.lead:
            return self.leading_name
        spec = self.axes[axis - self.lead]
        return spec.symbol or spec.name

    def _named(self, axis_spec: AxisSpec, k: int, dim: int) -> MessageRef:
        """``column j=3`` with the axis name as the bundle's word (said in the learner's language at the door)."""
        text = spaced([word(axis_spec.name), verbatim(f"{axis_spec.symbol}={k}" if axis_spec.symbol else str(k))])
        if axis_spec.pairs:
            if dim % 2 and k == dim - 1:
                return m.WHERE_UNPAIRED(at=text, name=word(axis_spec.name))
            return m.WHERE_PAIR(at=text, pair=f"{axis_spec.pair_symbol}={k // 2}",
                                kind=word(axis_spec.pairs[k % 2]))
        return text

    def item_of(self, flat: int) -> tuple[int, int, tuple[int, ...]]:
        """For a tuple output: the item holding element ``flat`` of the laid-out values, where that item starts,
        and its shape."""
        start = 0
        for k, shape in enumerate(self.parts or ()):
            size = int(np.prod(shape, dtype=np.int64))
            if flat < start + size:
                return k, start, shape
            start += size
        return max(0, len(self.parts or ()) - 1), start, ()

    def describe(self, index: list[int] | tuple[int, ...]) -> str:
        """An element in the exercise's terms, in English (:meth:`describe_said` in any language)."""
        return render(self.describe_said(index), "en")

    def describe_said(self, index: list[int] | tuple[int, ...]) -> MessageRef:
        """An element in the exercise's terms: the judge's words as message ids, the bundle's names as they are."""
        index = [int(i) for i in index]
        if self.parts is not None and len(index) == 1:
            k, start, shape = self.item_of(index[0])
            local = np.unravel_index(index[0] - start, shape) if shape else ()
            return verbatim(f"{self.part_names[k]}[{', '.join(str(int(i)) for i in local)}]" if shape
                            else self.part_names[k])
        if not self.shape and not index:
            return m.WHERE_THE_VALUE()
        parts: list[MessageRef] = []
        if self.lead:
            parts.append(m.WHERE_LEADING(name=word(self.leading_name),
                                         index=str(tuple(index[:self.lead])).replace(",)", ")")))
        for k, (spec, i) in enumerate(zip(self.axes, index[self.lead:])):
            parts.append(self._named(spec, i, self.shape[self.lead + k]))
        if not parts:
            return m.WHERE_INDEX(index=str(tuple(index)))
        return listed(parts)

    def paired_axis(self) -> int | None:
        for k, spec in enumerate(self.axes):
            if spec.pairs:
                return self.lead + k
        return None

    def kind_names(self) -> list[str]:
        axis = self.paired_axis()
        if axis is None:
            return []
        spec = self.axes[axis - self.lead]
        assert spec.pairs is not None  # a paired axis names its pairs
        return [render(r, "en") for r in self.kind_refs()]

    def kind_refs(self) -> list[MessageRef]:
        """The kinds of element of the paired axis (``sin columns``, ``cos columns``, ``unpaired last column``)
        as message ids with the bundle's words, in :meth:`kind_names`' order."""
        axis = self.paired_axis()
        if axis is None:
            return []
        spec = self.axes[axis - self.lead]
        assert spec.pairs is not None  # a paired axis names its pairs
        names, one = word(spec.name, "label", plural(spec.name)), word(spec.name)
        return [m.KIND_PAIRED(pair=word(spec.pairs[0]), names=names),
                m.KIND_PAIRED(pair=word(spec.pairs[1]), names=names), m.KIND_UNPAIRED(name=one)]

    def kind_said(self, name: str) -> MessageRef | str:
        """A key of :func:`mismatch_kinds` as message ids (an item's name of a tuple output stays as it is)."""
        return dict(zip(self.kind_names(), self.kind_refs())).get(name, name)


def _item_mismatches(got: np.ndarray, expected: np.ndarray, tol: Tolerance, terms: Terms) -> dict[str, int]:
    """A tuple output: how many out-of-tolerance (or non-finite) elements each item has."""
    out, start = {}, 0
    for name, shape in zip(terms.part_names, terms.parts or ()):
        size = int(np.prod(shape, dtype=np.int64))
        g = got.reshape(-1)[start:start + size].astype(np.float64)
        e = expected.reshape(-1)[start:start + size]
        with np.errstate(invalid="ignore", over="ignore"):
            bad = int(np.count_nonzero(~(np.abs(g - e) <= tol.atol + tol.rtol * np.abs(e))))
        if bad:
            out[name] = bad
        start += size
    return out


def mismatch_kinds(got: np.ndarray, expected: np.ndarray, tol: Tolerance, terms: Terms) -> dict[str, int]:
    """How many out-of-tolerance (or non-finite) elements fall in each kind of element (each item of a tuple
    output).  Counts only."""
    if terms.parts is not None:
        return _item_mismatches(got, expected, tol, terms)
    axis = terms.paired_axis()
    if axis is None or expected.size == 0:
        return {}
    names = terms.kind_names()
    dim = expected.shape[axis]
    classes = np.arange(dim) % 2
    if dim % 2:
        classes[-1] = 2
    g = np.moveaxis(got, axis, -1).reshape(-1, dim)
    e = np.moveaxis(expected, axis, -1).reshape(-1, dim)
    counts = np.zeros(3, dtype=np.int64)
    step = max(1, CHUNK // max(dim, 1))
    for start in range(0, e.shape[0], step):
        gg = g[start:start + step].astype(np.float64)
        ee = e[start:start + step]
        with np.errstate(invalid="ignore", over="ignore"):
            bad = ~(np.abs(gg - ee) <= tol.atol + tol.rtol * np.abs(ee))
        per_column = bad.sum(axis=0)
        counts += np.bincount(classes, weights=per_column, minlength=3).astype(np.int64)
    return {name: int(n) for name, n in zip(names, counts) if n}


def _value(x: float | np.ndarray) -> float | None:
    return float(x) if math.isfinite(float(x)) else None


def value_window(got: np.ndarray, expected: np.ndarray, worst: list[int], terms: Terms) -> ValueWindow:
    """A few rows and columns of the last two axes around the worst element, expected beside got (for a tuple
    output, of the item holding it)."""
    if terms.parts is not None and expected.ndim == 1:
        k, start, shape = terms.item_of(int(worst[0]))
        size = int(np.prod(shape, dtype=np.int64))
        local = [int(i) for i in np.unravel_index(int(worst[0]) - start, shape)] if shape else []
        window = value_window(got.reshape(-1)[start:start + size].reshape(shape),
                              expected.reshape(-1)[start:start + size].reshape(shape), local, Terms(None, shape))
        window.where = terms.part_names[k] + (f", {window.where}" if window.where else "")
        window.row_label, window.col_label = ("row" if len(shape) >= 2 else ""), ("column" if shape else "")
        return window
    if expected.ndim == 0:
        return ValueWindow(rows=[0], cols=[0], expected=[[float(expected)]], got=[[_value(got)]], worst=[0, 0])
    g2 = got.reshape((1,) + got.shape) if got.ndim == 1 else got
    e2 = expected.reshape((1,) + expected.shape) if expected.ndim == 1 else expected
    index = ([0] + list(worst)) if expected.ndim == 1 else list(worst)
    lead = tuple(index[:-2])
    r, c = index[-2], index[-1]
    nr, nc = e2.shape[-2], e2.shape[-1]
    r0 = min(max(0, r - ROWS_AROUND), max(0, nr - (2 * ROWS_AROUND + 1)))
    c0 = min(max(0, c - COLS_BEFORE), max(0, nc - (COLS_BEFORE + COLS_AFTER + 1)))
    rows = list(range(r0, min(nr, r0 + 2 * ROWS_AROUND + 1)))
    cols = list(range(c0, min(nc, c0 + COLS_BEFORE + COLS_AFTER + 1)))
    exp = [[float(e2[lead + (i, j)]) for j in cols] for i in rows]
    got_values = [[_value(g2[lead + (i, j)]) for j in cols] for i in rows]
    where = ""
    if lead and expected.ndim > 2:
        where = f"{terms.leading_name} index {lead}".replace(",)", ")")
    return ValueWindow(where=where, row_label=terms.axis_label(-2) if expected.ndim >= 2 else "",
                       col_label=terms.axis_label(-1), rows=rows, cols=cols, expected=exp, got=got_values,
                       worst=[r, c])
