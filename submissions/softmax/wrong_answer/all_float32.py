"""Wrong answer: casts to float32 "for speed", whatever x's dtype."""
# diagnosis: float32_precision
import numpy as np


def softmax(x, axis=-1):
    x = np.asarray(x, dtype=np.float32)
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)
