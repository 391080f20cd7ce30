"""Known mistakes for adam-step, as small wrong implementations (each with adam_step's signature).

Imported only in the judge's process (like reference.py).  Each computes in the inputs' own float dtype, as
learners' code does when it does not cast, and never writes into its inputs.
"""

import numpy as np


def _float(a):
    a = np.asarray(a)
    return a if a.dtype.kind == "f" else a.astype(np.float64)


def _adam(param, grad, m, v, t, lr, beta1, beta2, eps, *, correct=True, eps_in=False, t_shift=0, swap=False,
          squared=True, store_hat=False, old_moments=False, sign=-1.0, one_minus=True, defaults=False):
    param, grad, m, v = (_float(a) for a in (param, grad, m, v))
    if defaults:
        lr, beta1, beta2, eps = 1e-3, 0.9, 0.999, 1e-8
    b1, b2 = (beta2, beta1) if swap else (beta1, beta2)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        new_m = b1 * m + ((1.0 - b1) if one_minus else 1.0) * grad
        new_v = b2 * v + ((1.0 - b2) if one_minus else 1.0) * (grad * grad if squared else np.abs(grad))
        step_m, step_v = (m, v) if old_moments else (new_m, new_v)
        tt = t + t_shift
        m_hat = step_m / (1.0 - b1 ** tt) if correct else step_m
        v_hat = step_v / (1.0 - b2 ** tt) if correct else step_v
        denom = np.sqrt(v_hat + eps) if eps_in else np.sqrt(v_hat) + eps
        new_param = param + sign * lr * m_hat / denom
    if store_hat:
        return new_param, m_hat, v_hat
    return new_param, new_m, new_v


def no_bias_correction(param, grad, m, v, t, lr=1e-3, beta1=0.9, beta2=0.999, eps=1e-8):
    return _adam(param, grad, m, v, t, lr, beta1, beta2, eps, correct=False)


def eps_inside_sqrt(param, grad, m, v, t, lr=1e-3, beta1=0.9, beta2=0.999, eps=1e-8):
    return _adam(param, grad, m, v, t, lr, beta1, beta2, eps, eps_in=True)


def t_from_zero(param, grad, m, v, t, lr=1e-3, beta1=0.9, beta2=0.999, eps=1e-8):
    """The bias correction with t - 1 (steps counted from 0): at t = 1 it divides by 1 - beta**0 = 0."""
    return _adam(param, grad, m, v, t, lr, beta1, beta2, eps, t_shift=-1)


def betas_swapped(param, grad, m, v, t, lr=1e-3, beta1=0.9, beta2=0.999, eps=1e-8):
    return _adam(param, grad, m, v, t, lr, beta1, beta2, eps, swap=True)


def grad_not_squared(param, grad, m, v, t, lr=1e-3, beta1=0.9, beta2=0.999, eps=1e-8):
    """|grad| where the second moment takes grad**2."""
    return _adam(param, grad, m, v, t, lr, beta1, beta2, eps, squared=False)


def corrected_moments_returned(param, grad, m, v, t, lr=1e-3, beta1=0.9, beta2=0.999, eps=1e-8):
    """m_hat and v_hat returned as the new moments: the next step would correct them twice."""
    return _adam(param, grad, m, v, t, lr, beta1, beta2, eps, store_hat=True)


def old_moments_step(param, grad, m, v, t, lr=1e-3, beta1=0.9, beta2=0.999, eps=1e-8):
    """The step taken with the moments from before this gradient."""
    return _adam(param, grad, m, v, t, lr, beta1, beta2, eps, old_moments=True)


def step_ascends(param, grad, m, v, t, lr=1e-3, beta1=0.9, beta2=0.999, eps=1e-8):
    """param + lr * ...: a step up the gradient."""
    return _adam(param, grad, m, v, t, lr, beta1, beta2, eps, sign=1.0)


def one_minus_beta_missing(param, grad, m, v, t, lr=1e-3, beta1=0.9, beta2=0.999, eps=1e-8):
    """beta * m + grad: the (1 - beta) factors on the new gradient forgotten."""
    return _adam(param, grad, m, v, t, lr, beta1, beta2, eps, one_minus=False)


def hyperparameters_ignored(param, grad, m, v, t, lr=1e-3, beta1=0.9, beta2=0.999, eps=1e-8):
    """lr, beta1, beta2 and eps always at their defaults, whatever the call says."""
    return _adam(param, grad, m, v, t, lr, beta1, beta2, eps, defaults=True)
