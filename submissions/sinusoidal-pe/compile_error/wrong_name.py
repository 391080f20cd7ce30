"""Compile error: the table function is named sinusoidal_encoding instead of sinusoidal_pe."""
import numpy as np


def sinusoidal_encoding(max_len, d_model, base=10000.0):
    pe = np.zeros((max_len, d_model))
    k = d_model // 2
    ang = np.arange(max_len)[:, None] / base ** (2 * np.arange(k) / d_model)
    pe[:, 0:2 * k:2] = np.sin(ang)
    pe[:, 1:2 * k:2] = np.cos(ang)
    return pe


def add_positional_encoding(x, base=10000.0):
    x = np.asarray(x)
    return x + sinusoidal_encoding(x.shape[-2], x.shape[-1], base)
