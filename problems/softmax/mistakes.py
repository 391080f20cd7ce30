"""Known mistakes for softmax, as small wrong implementations (each with softmax's signature).

Imported only in the judge's process (like reference.py): the judge runs each one on a failing case's inputs and
names it when it reproduces what the learner returned, NaN where the learner's overflowed included.  Each computes
in x's own float dtype, as learners' code does when it does not cast: float32's exp overflows past 88, not 709.
"""

import numpy as np


def _float(x):
    x = np.asarray(x)
    return x if x.dtype.kind == "f" else x.astype(np.float64)


def _exp_ratio(x, axis, shift_axis, sum_axis, keepdims=True):
    x = _float(x)
    with np.errstate(over="ignore", invalid="ignore"):
        if shift_axis == "none":
            e = np.exp(x)
        else:
            e = np.exp(x - np.max(x, axis=shift_axis, keepdims=shift_axis is not None))
        return e / np.sum(e, axis=sum_axis, keepdims=keepdims and sum_axis is not None)


def no_max_subtraction(x, axis=-1):
    """exp(x) / sum(exp(x)) as written: exp overflows to inf past ~709, and inf / inf is NaN."""
    return _exp_ratio(x, axis, "none", axis)


def global_max(x, axis=-1):
    """The max of the whole array subtracted: rows far below it underflow to 0 / 0."""
    return _exp_ratio(x, axis, None, axis)


def axis_ignored(x, axis=-1):
    """Always over the last axis, whatever axis says."""
    return _exp_ratio(x, -1, -1, -1)


def sum_over_all(x, axis=-1):
    """Divided by the sum of the whole array instead of the sum along the axis."""
    return _exp_ratio(x, axis, axis, None)


def keepdims_forgotten(x, axis=-1):
    """The sum along the axis without keepdims: it broadcasts against the wrong axis (a ValueError when the
    shapes do not line up, wrong values when they happen to)."""
    x = np.asarray(x, dtype=np.float64)
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis)


def keepdims_forgotten_in_max(x, axis=-1):
    """The max along the axis without keepdims: each entry is shifted by another slice's max."""
    x = _float(x)
    with np.errstate(over="ignore", invalid="ignore"):
        e = np.exp(x - np.max(x, axis=axis))
        return e / np.sum(e, axis=axis, keepdims=True)


def first_axis(x, axis=-1):
    """Always over axis 0 (a tutorial's e_x / e_x.sum(axis=0)), whatever axis says."""
    return _exp_ratio(x, 0, 0, 0)


# -- property checks: check(function, args, got) -> True (holds), False, or None (not applicable) --

def sums_to_one(function, args, got):
    got = np.asarray(got, dtype=np.float64)
    x = np.asarray(args["x"])
    if got.shape != x.shape or got.ndim == 0:
        return None
    with np.errstate(invalid="ignore"):
        return bool(np.all(np.abs(np.sum(got, axis=args.get("axis", -1)) - 1.0) <= 1e-6))


def within_zero_one(function, args, got):
    got = np.asarray(got, dtype=np.float64)
    return bool(np.all((got >= 0.0) & (got <= 1.0)))
