"""Known mistakes for rms-norm, as small wrong implementations (each with rms_norm's signature).

Imported only in the judge's process (like reference.py).  Each computes in x's own float dtype, as learners'
code does when it does not cast.
"""

import numpy as np


def _float(a):
    a = np.asarray(a)
    return a if a.dtype.kind == "f" else a.astype(np.float64)


def _rms(x, weight, eps, *, axis=-1, centre=False, total=False, eps_out=False, keepdims=True, std=False,
         use_weight=True):
    x, weight = _float(x), _float(weight)
    with np.errstate(divide="ignore", invalid="ignore"):
        if std:  # np.std: the deviations from the mean, the numerator left as it was
            ms = x.var(axis=axis, keepdims=keepdims)
        else:
            c = x - x.mean(axis=axis, keepdims=keepdims) if centre else x
            ms = (c * c).sum(axis=axis, keepdims=keepdims) if total else (c * c).mean(axis=axis, keepdims=keepdims)
            x = c
        out = x / (np.sqrt(ms) + eps) if eps_out else x / np.sqrt(ms + eps)
        return out * weight if use_weight else out


def eps_outside_sqrt(x, weight, eps=1e-6):
    return _rms(x, weight, eps, eps_out=True)


def eps_ignored(x, weight, eps=1e-6):
    """No eps: a row of zeros is 0 / 0."""
    return _rms(x, weight, 0.0)


def eps_fixed(x, weight, eps=1e-6):
    """The eps argument ignored: always 1e-6."""
    return _rms(x, weight, 1e-6)


def mean_subtracted(x, weight, eps=1e-6):
    """Centred first, as in layer norm."""
    return _rms(x, weight, eps, centre=True)


def std_not_rms(x, weight, eps=1e-6):
    """Divided by the standard deviation (np.std subtracts the mean), x itself not centred."""
    return _rms(x, weight, eps, std=True)


def sum_not_mean(x, weight, eps=1e-6):
    """The sum of squares instead of their mean: the L2 norm, sqrt(d) times too large."""
    return _rms(x, weight, eps, total=True)


def batch_axis(x, weight, eps=1e-6):
    """The mean of squares over axis 0."""
    return _rms(x, weight, eps, axis=0)


def all_axes(x, weight, eps=1e-6):
    """One mean of squares for the whole array."""
    return _rms(x, weight, eps, axis=None)


def weight_ignored(x, weight, eps=1e-6):
    return _rms(x, weight, eps, use_weight=False)


def keepdims_forgotten(x, weight, eps=1e-6):
    """The mean without keepdims: broadcasts against the wrong axis (ValueError, or wrong values for a square)."""
    return _rms(x, weight, eps, keepdims=False)


# -- property checks: check(function, args, got) -> True (holds), False, or None (not applicable) --

def unit_rms(function, args, got):
    """out / weight has mean square ms / (ms + eps) along the last axis."""
    weight = np.asarray(args["weight"], dtype=np.float64)
    got = np.asarray(got, dtype=np.float64)
    x = np.asarray(args["x"], dtype=np.float64)
    if got.shape != x.shape or np.any(np.abs(weight) < 1e-3):
        return None
    ms = np.mean(x * x, axis=-1)
    want = ms / (ms + args.get("eps", 1e-6))
    with np.errstate(invalid="ignore"):
        return bool(np.all(np.abs(np.mean((got / weight) ** 2, axis=-1) - want) <= 1e-6))


def keeps_direction(function, args, got):
    """Each row of out / weight points the same way as the row of x (a positive multiple of it)."""
    weight = np.asarray(args["weight"], dtype=np.float64)
    got = np.asarray(got, dtype=np.float64)
    x = np.asarray(args["x"], dtype=np.float64)
    if got.shape != x.shape or np.any(np.abs(weight) < 1e-3):
        return None
    z = got / weight
    with np.errstate(invalid="ignore"):
        return bool(np.all((np.sign(z) == np.sign(x)) | (np.abs(x) < 1e-12)))
