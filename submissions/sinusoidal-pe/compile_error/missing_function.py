"""Compile error: only sinusoidal_pe is defined; add_positional_encoding is missing."""
import numpy as np


def sinusoidal_pe(max_len, d_model, base=10000.0):
    pe = np.zeros((max_len, d_model))
    k = d_model // 2
    ang = np.arange(max_len)[:, None] / base ** (2 * np.arange(k) / d_model)
    pe[:, 0:2 * k:2] = np.sin(ang)
    pe[:, 1:2 * k:2] = np.cos(ang)
    return pe
