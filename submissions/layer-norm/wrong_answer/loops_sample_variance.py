"""Wrong answer: hand-written loops dividing the squared deviations by d - 1 (and by zero when d = 1, a crash
on that case; the wrong values elsewhere are still named)."""
# diagnosis: ddof_one
import math

import numpy as np


def layer_norm(x, gamma, beta, eps=1e-5):
    x = np.asarray(x, dtype=np.float64)
    d = x.shape[-1]
    out = np.zeros(x.shape)
    for idx in np.ndindex(*x.shape[:-1]):
        row = x[idx]
        m = float(np.sum(row)) / d
        s = 0.0
        for v in row:
            s += (v - m) * (v - m)
        s /= (d - 1)
        out[idx] = (row - m) / math.sqrt(s + eps)
    return out * gamma + beta
