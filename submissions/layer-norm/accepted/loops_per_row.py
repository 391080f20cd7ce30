"""Accepted: one row at a time, mean and variance by hand."""
import math

import numpy as np


def layer_norm(x, gamma, beta, eps=1e-5):
    x = np.asarray(x, dtype=np.float64)
    d = x.shape[-1]
    rows = x.reshape(-1, d)
    out = np.empty_like(rows)
    for r in range(rows.shape[0]):
        row = rows[r].tolist()
        mean = sum(row) / d
        var = sum((v - mean) ** 2 for v in row) / d
        inv = 1.0 / math.sqrt(var + eps)
        out[r] = [(v - mean) * inv for v in row]
    return out.reshape(x.shape) * gamma + beta
