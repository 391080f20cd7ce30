"""Accepted: 0.5 (1 + tanh z) = sigmoid(2z), written with a stable logistic (exp of a non-positive number only)."""
import math

import numpy as np


def _sigmoid(t):
    out = np.empty_like(t)
    pos = t >= 0
    out[pos] = 1.0 / (1.0 + np.exp(-t[pos]))
    e = np.exp(t[~pos])
    out[~pos] = e / (1.0 + e)
    return out


def gelu(x):
    x = np.asarray(x, dtype=np.float64)
    z = math.sqrt(2 / math.pi) * (x + 0.044715 * x * x * x)
    return x * _sigmoid(2.0 * z)
