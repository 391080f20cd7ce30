"""Known mistakes for layer-norm, as small wrong implementations (each with layer_norm's signature).

Imported only in the judge's process (like reference.py).  Each computes in x's own float dtype, as learners'
code does when it does not cast.
"""

import warnings

import numpy as np


def _float(a):
    a = np.asarray(a)
    return a if a.dtype.kind == "f" else a.astype(np.float64)


def _norm(x, gamma, beta, eps, *, axis=-1, ddof=0, eps_out=False, root=True, one_pass=False, affine="right",
          keepdims=True):
    x, gamma, beta = _float(x), _float(gamma), _float(beta)
    with np.errstate(divide="ignore", invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # ddof=1 with one feature: NaN, as the learner's
        mean = x.mean(axis=axis, keepdims=keepdims)
        if one_pass:
            var = (x * x).mean(axis=axis, keepdims=keepdims) - mean * mean
        else:
            var = x.var(axis=axis, ddof=ddof, keepdims=keepdims)
        spread = np.sqrt(var) if root else var
        scaled = (x - mean) / (spread + eps if eps_out else (np.sqrt(var + eps) if root else var + eps))
        if affine == "swapped":
            return scaled * beta + gamma
        if affine == "none":
            return scaled
        return scaled * gamma + beta


def ddof_one(x, gamma, beta, eps=1e-5):
    """The sample variance (ddof=1, torch.var's default) instead of the population variance."""
    return _norm(x, gamma, beta, eps, ddof=1)


def eps_outside_sqrt(x, gamma, beta, eps=1e-5):
    """(x - mean) / (sqrt(var) + eps)."""
    return _norm(x, gamma, beta, eps, eps_out=True)


def eps_ignored(x, gamma, beta, eps=1e-5):
    """No eps at all: a constant row is 0 / 0."""
    return _norm(x, gamma, beta, 0.0)


def eps_fixed(x, gamma, beta, eps=1e-5):
    """The eps argument ignored: always 1e-5."""
    return _norm(x, gamma, beta, 1e-5)


def variance_not_rooted(x, gamma, beta, eps=1e-5):
    """Divided by var + eps, the square root forgotten."""
    return _norm(x, gamma, beta, eps, root=False)


def one_pass_variance(x, gamma, beta, eps=1e-5):
    """var = mean(x^2) - mean(x)^2: catastrophic cancellation when x has a large common offset."""
    return _norm(x, gamma, beta, eps, one_pass=True)


def batch_axis(x, gamma, beta, eps=1e-5):
    """Statistics over axis 0 (batch norm's axis) instead of the last one."""
    return _norm(x, gamma, beta, eps, axis=0)


def all_axes(x, gamma, beta, eps=1e-5):
    """One mean and one variance for the whole array."""
    return _norm(x, gamma, beta, eps, axis=None)


def gamma_beta_swapped(x, gamma, beta, eps=1e-5):
    """x_hat * beta + gamma."""
    return _norm(x, gamma, beta, eps, affine="swapped")


def affine_ignored(x, gamma, beta, eps=1e-5):
    """gamma and beta never applied."""
    return _norm(x, gamma, beta, eps, affine="none")


def keepdims_forgotten(x, gamma, beta, eps=1e-5):
    """The mean and variance without keepdims: they broadcast against the wrong axis (a ValueError when the shapes
    do not line up, wrong values when they happen to)."""
    return _norm(x, gamma, beta, eps, keepdims=False)


# -- property checks: check(function, args, got) -> True (holds), False, or None (not applicable) --

def _normalised(args, got):
    gamma, beta = np.asarray(args["gamma"], dtype=np.float64), np.asarray(args["beta"], dtype=np.float64)
    got = np.asarray(got, dtype=np.float64)
    if got.shape != np.shape(args["x"]) or np.any(np.abs(gamma) < 1e-3):
        return None
    return (got - beta) / gamma


def zero_mean(function, args, got):
    z = _normalised(args, got)
    if z is None:
        return None
    with np.errstate(invalid="ignore"):
        return bool(np.all(np.abs(z.mean(axis=-1)) <= 1e-6))


def unit_variance(function, args, got):
    """(got - beta) / gamma has variance var / (var + eps) along the last axis: 1 up to eps's share."""
    z = _normalised(args, got)
    x = np.asarray(args["x"], dtype=np.float64)
    if z is None or x.shape[-1] < 2:
        return None
    var = x.var(axis=-1)
    want = var / (var + args.get("eps", 1e-5))
    with np.errstate(invalid="ignore"):
        return bool(np.all(np.abs(z.var(axis=-1) - want) <= 1e-6))
