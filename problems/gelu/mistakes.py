"""Known mistakes for gelu, as small wrong implementations (each with gelu's signature).

Imported only in the judge's process (like reference.py).  Each computes in x's own float dtype, as learners'
code does when it does not cast.
"""

import math

import numpy as np

C = math.sqrt(2.0 / math.pi)


def _float(x):
    x = np.asarray(x)
    return x if x.dtype.kind == "f" else x.astype(np.float64)


def _tanh_form(x, *, c=C, cube=True, half=0.5):
    x = _float(x)
    inner = c * (x + 0.044715 * (x ** 3 if cube else x))
    return half * x * (1.0 + np.tanh(inner))


def exact_erf(x):
    """The exact GELU, x * Phi(x) with erf: not the tanh approximation the exercise asks for."""
    x = _float(x)
    erf = np.vectorize(math.erf, otypes=[np.float64])
    return (0.5 * x * (1.0 + erf(x / math.sqrt(2.0)))).astype(x.dtype)


def sigmoid_approximation(x):
    """The other approximation, x * sigmoid(1.702 x)."""
    x = _float(x)
    with np.errstate(over="ignore"):
        return x / (1.0 + np.exp(-1.702 * x))


def cube_missing(x):
    """0.044715 * x where the formula has 0.044715 * x**3."""
    return _tanh_form(x, cube=False)


def sqrt_2pi(x):
    """sqrt(2 * pi) where the formula has sqrt(2 / pi)."""
    return _tanh_form(x, c=math.sqrt(2.0 * math.pi))


def half_missing(x):
    """x * (1 + tanh(...)): the factor 0.5 forgotten."""
    return _tanh_form(x, half=1.0)


def tanh_by_exp(x):
    """tanh(z) written as (exp(2z) - 1) / (exp(2z) + 1): inf / inf = NaN once exp(2z) overflows."""
    x = _float(x)
    with np.errstate(over="ignore", invalid="ignore"):
        z = C * (x + 0.044715 * x ** 3)
        e = np.exp(2.0 * z)
        return 0.5 * x * (1.0 + (e - 1.0) / (e + 1.0))
