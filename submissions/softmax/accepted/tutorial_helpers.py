"""Accepted: tutorial style, a 1-D helper applied along the axis with np.apply_along_axis."""
import numpy as np


def stable_softmax_1d(v):
    """Softmax of one vector: shift by the max so the biggest exponent is exp(0) = 1."""
    v = v - v.max()
    ex = np.exp(v)
    return ex / ex.sum()


def softmax(x, axis=-1):
    x = np.array(x, dtype=float)
    # apply the 1-D version to every slice along `axis`
    return np.apply_along_axis(stable_softmax_1d, axis, x)
