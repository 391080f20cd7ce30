"""Accepted: angles as an outer product (np.outer) of positions and inverse
frequencies; add reshapes the table to (1, ..., 1, T, d) before adding."""
import numpy as np


def sinusoidal_pe(max_len, d_model, base=10000.0):
    n = d_model // 2
    inv_freq = np.power(float(base), -np.arange(0, 2 * n, 2) / d_model)
    angles = np.outer(np.arange(max_len, dtype=np.float64), inv_freq)
    pe = np.zeros((max_len, d_model))
    pe[:, :2 * n][:, ::2] = np.sin(angles)
    pe[:, :2 * n][:, 1::2] = np.cos(angles)
    return pe


def add_positional_encoding(x, base=10000.0):
    x = np.asarray(x)
    T, d = x.shape[-2], x.shape[-1]
    pe = sinusoidal_pe(T, d, base).reshape((1,) * (x.ndim - 2) + (T, d))
    return x + pe
