"""Accepted: math.tanh element by element over a flat copy."""
import math

import numpy as np

K = math.sqrt(2.0 / math.pi)


def gelu(x):
    flat = np.asarray(x, dtype=np.float64).ravel()
    out = [0.5 * v * (1.0 + math.tanh(K * (v + 0.044715 * v ** 3))) for v in flat.tolist()]
    return np.array(out).reshape(np.shape(x))
