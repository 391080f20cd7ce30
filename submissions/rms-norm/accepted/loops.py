"""Accepted: explicit loops over the rows, math for the root."""
import math

import numpy as np


def rms_norm(x, weight, eps=1e-6):
    x = np.array(x, dtype=float)
    d = x.shape[-1]
    out = np.empty_like(x)
    for idx in np.ndindex(*x.shape[:-1]):
        row = x[idx]
        mean_sq = float(np.dot(row, row)) / d
        out[idx] = row / math.sqrt(mean_sq + eps)
    return out * weight
