"""Accepted: table is computed in float64, but add returns float32 for float32 input
(the float64 table is cast down only at the very end)."""
import numpy as np


def sinusoidal_pe(max_len, d_model, base=10000.0):
    half = d_model // 2
    inv_freq = 1.0 / (base ** (np.arange(half, dtype=np.float64) * 2.0 / d_model))
    ang = np.arange(max_len, dtype=np.float64)[:, None] * inv_freq[None, :]
    pe = np.zeros((max_len, d_model), dtype=np.float64)
    pe[:, 0:2 * half:2] = np.sin(ang)
    pe[:, 1:2 * half:2] = np.cos(ang)
    return pe


def add_positional_encoding(x, base=10000.0):
    x = np.asarray(x)
    pe = sinusoidal_pe(x.shape[-2], x.shape[-1], base)
    if x.dtype == np.float32:
        return x + pe.astype(x.dtype)
    return x + pe
