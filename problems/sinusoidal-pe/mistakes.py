"""Known mistakes for sinusoidal-pe, as small wrong implementations, and property checks.

Imported only in the judge's process (like reference.py): the judge runs each
mistaken implementation on a failing case's inputs and compares it with what the
learner returned.  Every ``*_pe`` has the signature of ``sinusoidal_pe`` and
every ``*_add`` that of ``add_positional_encoding``.
"""

import numpy as np


def _table(max_len, d_model, base=10000.0, *, swap=False, grow=False, halves=False, start=0,
           exponent_factor=2.0, divisor=None, fill_last=False, fixed_base=None):
    """The reference table with one (or more) of the known mistakes switched on."""
    base = float(fixed_base if fixed_base is not None else base)
    pairs = d_model // 2
    positions = np.arange(start, start + max_len, dtype=np.float64)[:, None]
    if fill_last:  # every even column gets a sine, the unpaired last one included
        exps = np.arange(0, d_model, 2, dtype=np.float64) / d_model
        angles = positions / np.power(base, exps)[None, :]
        table = np.zeros((max_len, d_model))
        table[:, 0::2] = np.sin(angles)
        table[:, 1::2] = np.cos(angles[:, :pairs])
        return table
    div = float(divisor(d_model) if divisor else d_model) or 1.0
    exps = exponent_factor * np.arange(pairs, dtype=np.float64) / div
    freq = np.power(base, exps)[None, :]
    angles = positions * freq if grow else positions / freq
    first, second = (np.cos(angles), np.sin(angles)) if swap else (np.sin(angles), np.cos(angles))
    table = np.zeros((max_len, d_model))
    if halves:
        table[:, :pairs] = first
        table[:, pairs:2 * pairs] = second
    else:
        table[:, 0:2 * pairs:2] = first
        table[:, 1:2 * pairs:2] = second
    return table


def _add(x, base, **mistake):
    x = np.asarray(x)
    return x.astype(np.float64) + _table(x.shape[-2], x.shape[-1], base, **mistake)


def _pair(**mistake):
    """The mistaken ``sinusoidal_pe`` and ``add_positional_encoding`` for one set of mistakes."""
    def table(max_len, d_model, base=10000.0):
        return _table(max_len, d_model, base, **mistake)

    def add(x, base=10000.0):
        return _add(x, base, **mistake)

    return table, add


def _filled_columns(d_model):
    return d_model - d_model % 2


swapped_pe, swapped_add = _pair(swap=True)
grow_pe, grow_add = _pair(grow=True)
halves_pe, halves_add = _pair(halves=True)
start_one_pe, start_one_add = _pair(start=1)
i_not_2i_pe, i_not_2i_add = _pair(exponent_factor=1.0)
last_filled_pe, last_filled_add = _pair(fill_last=True)
odd_divisor_pe, odd_divisor_add = _pair(divisor=_filled_columns)
base_ignored_pe, base_ignored_add = _pair(fixed_base=10000.0)


def first_axis_add(x, base=10000.0):
    """The table for x.shape[0] rows (the batch axis when there is one), cut or zero-padded to T rows."""
    x = np.asarray(x)
    rows, d_model = x.shape[-2], x.shape[-1]
    table = _table(x.shape[0], d_model, base)
    if table.shape[0] >= rows:
        table = table[:rows]
    else:
        table = np.concatenate([table, np.zeros((rows - table.shape[0], d_model))], axis=0)
    return x.astype(np.float64) + table


# -- property checks: check(function, args, got) -> True (holds), False, or None (not applicable) --

def _learner_table(function, args, got):
    """The table the learner's output implies: the output itself, or output minus x."""
    got = np.asarray(got, dtype=np.float64)
    if function == "add_positional_encoding":
        x = np.asarray(args["x"], dtype=np.float64)
        if x.shape != got.shape:
            return None
        return got - x
    return got


def unit_circle(function, args, got):
    table = _learner_table(function, args, got)
    if table is None or table.shape[-1] < 2:
        return None
    pairs = table.shape[-1] // 2
    with np.errstate(invalid="ignore", over="ignore"):
        radius = table[..., 0:2 * pairs:2] ** 2 + table[..., 1:2 * pairs:2] ** 2
    return bool(np.all(np.abs(radius - 1.0) <= 1e-6))


def row_zero(function, args, got):
    table = _learner_table(function, args, got)
    if table is None or table.ndim < 2:
        return None
    d_model = table.shape[-1]
    want = np.zeros(d_model)
    want[1:2 * (d_model // 2):2] = 1.0
    return bool(np.all(np.abs(table[..., 0, :] - want) <= 1e-6))


def within_unit_range(function, args, got):
    table = _learner_table(function, args, got)
    if table is None:
        return None
    return bool(np.all(np.abs(table) <= 1.0 + 1e-6))


def batch_independent(function, args, got):
    table = _learner_table(function, args, got)
    if table is None or table.ndim < 3:
        return None
    flat = table.reshape((-1,) + table.shape[-2:])
    return bool(np.all(np.abs(flat - flat[0]) <= 1e-6))


# -- the family of plausible answers (judge.diagnosis.recover fits learners' outputs to it) ---------------

_NUMERATOR = {"two_i": lambda k, j: 2 * k, "i": lambda k, j: k, "column": lambda k, j: j,
              "two_column": lambda k, j: 2 * j}


def family_table(max_len, d_model, base, c):
    """The table for one combination ``c`` of the components declared under ``family`` in mistakes.yaml."""
    dt = np.float32 if c["dtype"] == "float32" else np.float64
    base = dt(10000.0 if c["base"] == "fixed" else base)
    pairs = d_model // 2
    j = np.arange(d_model)
    if c["arrangement"] == "halves":
        k = np.where(j < pairs, j, j - pairs)
        is_sin = j < pairs
    else:
        k = j // 2
        is_sin = j % 2 == 0
    if d_model % 2:  # the unpaired last column: a sine of pair `pairs`, if it is filled at all
        k[-1], is_sin[-1] = pairs, True
    numer = _NUMERATOR[c["exponent"]](k, j).astype(dt)
    divisor = {"d": d_model, "filled": d_model - d_model % 2, "padded": d_model + d_model % 2}[c["divisor"]]
    freq = np.power(base, numer / dt(max(divisor, 1)))
    start = 1 if c["offset"] == "one" else 0
    positions = np.arange(start, start + max_len, dtype=dt)[:, None]
    angles = positions * freq if c["sign"] == "grow" else positions / freq
    if c["order"] == "cos_first":
        is_sin = ~is_sin
        if d_model % 2:
            is_sin[-1] = True
    if c["arrangement"] == "row_parity":  # the row's parity, not the column's, picks sin or cos
        rows = (np.arange(max_len) + start) % 2 == (1 if c["order"] == "cos_first" else 0)
        table = np.where(rows[:, None], np.sin(angles), np.cos(angles))
    else:
        table = np.where(is_sin[None, :], np.sin(angles), np.cos(angles))
    if d_model % 2 and c["odd"] == "zero":
        table[:, -1] = 0
    if c["row0"] == "zeroed":
        table[0] = 0
    return table.astype(dt)


def family_build(function, args, c):
    if function == "sinusoidal_pe":  # the sequence-axis component only concerns add_positional_encoding
        return family_table(args["max_len"], args["d_model"], args.get("base", 10000.0), c)
    x = np.asarray(args["x"])
    rows, d_model = x.shape[-2], x.shape[-1]
    base = args.get("base", 10000.0)
    if c["axis"] == "first":
        table = family_table(x.shape[0], d_model, base, c)
        table = table[:rows] if table.shape[0] >= rows else \
            np.concatenate([table, np.zeros((rows - table.shape[0], d_model), table.dtype)])
    else:
        table = family_table(rows, d_model, base, c)
    return x + table


def family_recover(function, args, got):
    """A first guess read directly off the table, and facts: row 0 shows which columns are cosines (cos 0 = 1);
    row 1 gives each pair's frequency, w_i = atan2(sin, cos).  Facts are ids with parameters, worded in
    mistakes.yaml (family.facts) and its translations, so a learner reads them in their language."""
    table = np.asarray(got, dtype=np.float64)
    if function != "sinusoidal_pe":
        x = np.asarray(args["x"], dtype=np.float64)
        if x.shape != table.shape:
            return {}
        table = (table - x).reshape((-1,) + table.shape[-2:])[0]
    if table.ndim != 2 or table.shape[0] < 2 or table.shape[1] < 2:
        return {}
    d = table.shape[1]
    pairs = d // 2
    guess, facts = {}, []
    ones = np.isclose(table[0, :2 * pairs], 1.0, atol=1e-6)
    zeros = np.isclose(table[0, :2 * pairs], 0.0, atol=1e-6)
    if not (ones | zeros).all():
        guess["offset"] = "one"
        return guess
    odd_cols, even_cols = ones[1::2], ones[0::2]
    if odd_cols.all() and not even_cols.any():
        sin_cols, cos_cols = np.arange(0, 2 * pairs, 2), np.arange(1, 2 * pairs, 2)
    elif even_cols.all() and not odd_cols.any():
        guess["order"] = "cos_first"
        sin_cols, cos_cols = np.arange(1, 2 * pairs, 2), np.arange(0, 2 * pairs, 2)
    elif ones[pairs:].all() and not ones[:pairs].any():
        guess["arrangement"] = "halves"
        sin_cols, cos_cols = np.arange(pairs), np.arange(pairs, 2 * pairs)
    elif ones[:pairs].all() and not ones[pairs:].any():
        guess.update(arrangement="halves", order="cos_first")
        sin_cols, cos_cols = np.arange(pairs, 2 * pairs), np.arange(pairs)
    elif not ones.any():
        guess["row0"] = "zeroed" if np.allclose(table[0], 0) else "computed"
        return guess
    else:
        return guess
    w = np.arctan2(table[1, sin_cols], table[1, cos_cols])
    if np.all(np.isclose(table[1, sin_cols] ** 2 + table[1, cos_cols] ** 2, 1.0, atol=1e-6)):
        shown = ", ".join(f"{v:.4g}" for v in w[:4]) + (", ..." if len(w) > 4 else "")
        facts.append({"id": "frequencies", "params": {"values": shown}})   # worded in mistakes.yaml, family.facts
        base = float(args.get("base", 10000.0))
        if len(w) > 1 and 0 < w[1] < np.pi and w[1] != 1:
            e = -np.log(w[1]) / np.log(base)
            facts.append({"id": "exponent", "params": {"base": base, "exponent": float(-e), "expected": -2 / d}})
    guess["facts"] = facts
    return guess
