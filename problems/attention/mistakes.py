"""Known mistakes for attention, as small wrong implementations (each with the function's signature).

Imported only in the judge's process (like reference.py).  Each computes in q's own float dtype, as learners'
code does when it does not cast, and lets NaN come out where the learner's would (0 / 0 on a blocked row, inf /
inf past exp's overflow): the judge names a mistake by reproducing exactly that.
"""

import numpy as np


def _float(a):
    a = np.asarray(a)
    return a if a.dtype.kind == "f" else a.astype(np.float64)


def _attend(q, k, v, mask=None, *, scale="sqrt", masking="inf", blocked="zeros", axis=-1, shift=True,
            invert=False):
    q, k, v = _float(q), _float(k), _float(v)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        scores = q @ np.swapaxes(k, -1, -2)
        dk = q.shape[-1]
        scores = scores / {"sqrt": np.sqrt(dk), "none": 1.0, "dk": dk}[scale]
        allowed = None
        if mask is not None and masking != "ignored":
            allowed = np.broadcast_to(np.asarray(mask, dtype=bool), scores.shape)
            if invert:
                allowed = ~allowed
            if masking in ("inf", "nan"):
                scores = np.where(allowed, scores, -np.inf)
            elif masking == "large":  # masked_fill(-1e9): a blocked row is then uniform
                scores = np.where(allowed, scores, -1e9)
            elif masking == "zero":  # masked scores set to 0, which exp turns into weight
                scores = np.where(allowed, scores, 0.0)
        if shift:
            top = scores.max(axis=axis, keepdims=True)
            if masking == "inf":
                top = np.where(np.isfinite(top), top, 0.0)
            e = np.exp(scores - top)
        else:
            e = np.exp(scores)
        total = e.sum(axis=axis, keepdims=True)
        if masking == "inf":
            weights = np.divide(e, total, out=np.zeros_like(e), where=total > 0)
        else:
            weights = e / total
        if masking == "after" and allowed is not None:  # softmax first, masked weights zeroed, no renormalising
            weights = np.where(allowed, weights, 0.0)
        return weights @ v


def no_scale(q, k, v, mask=None):
    """q k^T without the 1/sqrt(dk)."""
    return _attend(q, k, v, mask, scale="none")


def scale_by_dk(q, k, v, mask=None):
    """q k^T / dk instead of / sqrt(dk)."""
    return _attend(q, k, v, mask, scale="dk")


def softmax_over_queries(q, k, v, mask=None):
    """The softmax along the queries' axis (-2) instead of the keys'."""
    return _attend(q, k, v, mask, axis=-2, masking="nan")


def no_max_subtraction(q, k, v, mask=None):
    """exp of the raw scores: inf past 709, and inf / inf = NaN."""
    return _attend(q, k, v, mask, shift=False, masking="nan")


def mask_after_softmax(q, k, v, mask=None):
    """The softmax over every key, then the masked weights set to 0: the rest no longer sum to 1."""
    return _attend(q, k, v, mask, masking="after")


def large_negative_mask(q, k, v, mask=None):
    """Masked scores set to -1e9: right wherever a query has an allowed key, uniform weights where it has none."""
    return _attend(q, k, v, mask, masking="large")


def blocked_rows_nan(q, k, v, mask=None):
    """Masked scores set to -inf and nothing more: a query with no allowed key is 0 / 0 = NaN."""
    return _attend(q, k, v, mask, masking="nan")


def masked_scores_zero(q, k, v, mask=None):
    """Masked scores set to 0 (not -inf): exp(0) = 1 still weighs each masked key."""
    return _attend(q, k, v, mask, masking="zero")


def mask_inverted(q, k, v, mask=None):
    """True read as "masked out" (PyTorch's key_padding_mask convention), False as allowed."""
    return _attend(q, k, v, mask, invert=True)


def mask_ignored(q, k, v, mask=None):
    return _attend(q, k, v, mask, masking="ignored")


# -- property checks: check(function, args, got) -> True (holds), False, or None (not applicable) --

def within_value_range(function, args, got):
    """Each output row is a weighted mean of v's rows (weights >= 0, summing to 1, or a row of zeros): every value
    lies within v's range along its column, or is 0."""
    v = np.asarray(args["v"], dtype=np.float64)
    got = np.asarray(got, dtype=np.float64)
    if got.shape[:-2] != v.shape[:-2] or got.shape[-1] != v.shape[-1]:
        return None
    lo, hi = v.min(axis=-2, keepdims=True), v.max(axis=-2, keepdims=True)
    with np.errstate(invalid="ignore"):
        inside = (got >= lo - 1e-6 * (1 + np.abs(lo))) & (got <= hi + 1e-6 * (1 + np.abs(hi)))
    return bool(np.all(inside | (got == 0)))
