"""Runtime error: keepdims in the sum but not in the max: crashes on most shapes, and the wrong values it gives
where the shapes happen to broadcast (a square matrix) are named."""
# diagnosis: keepdims_forgotten_in_max
import numpy as np


def softmax(x, axis=-1):
    m = np.max(x, axis=axis)
    e = np.exp(x - m)
    return e / np.sum(e, axis=axis, keepdims=True)
