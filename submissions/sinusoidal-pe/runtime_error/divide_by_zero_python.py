"""Runtime error: exponent written as 1 / (d_model / (2*i)) with plain Python numbers,
which raises ZeroDivisionError for the first pair (i = 0) on every call."""
import math

import numpy as np


def sinusoidal_pe(max_len, d_model, base=10000.0):
    pe = np.zeros((max_len, d_model))
    pos = np.arange(max_len, dtype=np.float64)
    for i in range(d_model // 2):
        divisor = math.pow(base, 1 / (d_model / (2 * i)))  # ZeroDivisionError at i = 0
        pe[:, 2 * i] = np.sin(pos / divisor)
        pe[:, 2 * i + 1] = np.cos(pos / divisor)
    return pe


def add_positional_encoding(x, base=10000.0):
    x = np.asarray(x)
    return x + sinusoidal_pe(x.shape[-2], x.shape[-1], base)
