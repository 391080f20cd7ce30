"""Reference solution for softmax, in float64.  Runs only in the judge's process."""

import numpy as np


def softmax(x, axis=-1):
    x = np.asarray(x, dtype=np.float64)
    shifted = x - np.max(x, axis=axis, keepdims=True)  # the largest exponent is 0: nothing overflows
    e = np.exp(shifted)
    return e / np.sum(e, axis=axis, keepdims=True)
