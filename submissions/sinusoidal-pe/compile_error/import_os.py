"""Compile error: a plain `import os` (refused module), otherwise a correct solution."""
import os

import numpy as np


def sinusoidal_pe(max_len, d_model, base=10000.0):
    pe = np.zeros((max_len, d_model))
    k = d_model // 2
    ang = np.arange(max_len)[:, None] / base ** (2 * np.arange(k) / d_model)
    pe[:, 0:2 * k:2] = np.sin(ang)
    pe[:, 1:2 * k:2] = np.cos(ang)
    if os.environ.get("PE_DEBUG"):
        print(pe)
    return pe


def add_positional_encoding(x, base=10000.0):
    x = np.asarray(x)
    return x + sinusoidal_pe(x.shape[-2], x.shape[-1], base)
