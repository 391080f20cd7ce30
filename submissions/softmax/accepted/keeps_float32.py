"""Accepted: computes in x's own dtype, so float32 in gives float32 out (allowed for float32 x)."""
import numpy as np


def softmax(x, axis=-1):
    x = np.asarray(x)
    if x.dtype != np.float32:
        x = x.astype(np.float64)
    shifted = x - x.max(axis=axis, keepdims=True)
    np.exp(shifted, out=shifted)  # shifted is a new array: x itself is never written
    shifted /= shifted.sum(axis=axis, keepdims=True)
    return shifted
