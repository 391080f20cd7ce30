"""Runtime error: written for a batch of rows: axis=1 does not exist for a vector."""
import numpy as np


def softmax(x, axis=-1):
    m = x.max(axis=1, keepdims=True)
    e = np.exp(x - m)
    return e / e.sum(axis=1, keepdims=True)
