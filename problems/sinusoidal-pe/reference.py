"""Reference solution for sinusoidal-pe, in float64.  Runs only in the judge's process."""

import numpy as np


def sinusoidal_pe(max_len, d_model, base=10000.0):
    pairs = d_model // 2
    table = np.zeros((max_len, d_model), dtype=np.float64)
    positions = np.arange(max_len, dtype=np.float64)[:, None]
    exponents = 2.0 * np.arange(pairs, dtype=np.float64) / d_model
    angles = positions / np.power(float(base), exponents)[None, :]
    table[:, 0:2 * pairs:2] = np.sin(angles)
    table[:, 1:2 * pairs:2] = np.cos(angles)
    return table


def add_positional_encoding(x, base=10000.0):
    x = np.asarray(x)
    return x.astype(np.float64) + sinusoidal_pe(x.shape[-2], x.shape[-1], base)
