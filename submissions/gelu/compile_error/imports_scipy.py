"""Compile error: scipy is not among the allowed imports."""
from scipy.special import erf


def gelu(x):
    return 0.5 * x * (1 + erf(x / 2 ** 0.5))
