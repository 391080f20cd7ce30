"""Runtime error: uses a float step in range() (range(0, d_model, 2.0)),
which raises TypeError on every call."""
import math

import numpy as np


def sinusoidal_pe(max_len, d_model, base=10000.0):
    pe = np.zeros((max_len, d_model))
    for p in range(max_len):
        for j in range(0, d_model - 1, 2.0):  # TypeError: float step
            w = 1.0 / math.pow(base, j / d_model)
            pe[p, int(j)] = math.sin(p * w)
            pe[p, int(j) + 1] = math.cos(p * w)
    return pe


def add_positional_encoding(x, base=10000.0):
    x = np.asarray(x)
    return x + sinusoidal_pe(x.shape[-2], x.shape[-1], base)
