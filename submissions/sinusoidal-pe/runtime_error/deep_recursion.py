"""Runtime error: a recursive "helper" for the positions with no base case,
so every call ends in RecursionError."""
import numpy as np


def _positions(n):
    return _positions(n - 1) + [n - 1]  # forgot `if n == 0: return []`


def sinusoidal_pe(max_len, d_model, base=10000.0):
    pos = np.array(_positions(max_len), dtype=np.float64)[:, None]
    k = d_model // 2
    ang = pos / base ** (2 * np.arange(k) / d_model)
    pe = np.zeros((max_len, d_model))
    pe[:, 0:2 * k:2] = np.sin(ang)
    pe[:, 1:2 * k:2] = np.cos(ang)
    return pe


def add_positional_encoding(x, base=10000.0):
    x = np.asarray(x)
    return x + sinusoidal_pe(x.shape[-2], x.shape[-1], base)
