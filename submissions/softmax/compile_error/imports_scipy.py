"""Compile error: scipy is not among the allowed imports."""
from scipy.special import softmax as _scipy_softmax


def softmax(x, axis=-1):
    return _scipy_softmax(x, axis=axis)
