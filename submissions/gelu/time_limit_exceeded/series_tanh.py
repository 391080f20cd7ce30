"""Time limit exceeded: tanh from its definition with a Python loop per element and a long continued fraction."""
import numpy as np


def slow_tanh(z, terms=200):
    if z > 20:
        return 1.0
    if z < -20:
        return -1.0
    frac = 0.0
    for k in range(terms, 0, -1):
        frac = z * z / ((2 * k + 1) + frac)
    return z / (1 + frac)


def gelu(x):
    flat = np.asarray(x, dtype=np.float64).ravel()
    out = np.empty_like(flat)
    for i, v in enumerate(flat):
        out[i] = 0.5 * v * (1 + slow_tanh(0.7978845608028654 * (v + 0.044715 * v ** 3)))
    return out.reshape(np.shape(x))
