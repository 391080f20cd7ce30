"""Real-world formulation (a translation of 1-based MATLAB course code): positions 1..max_len and the
constant 10000 written into the formula, so the base argument is ignored.  Two banked mistakes."""
# diagnosis: positions_start_at_one+base_ignored
import numpy as np


def sinusoidal_pe(max_len, d_model, base=10000.0):
    P = np.zeros((max_len, d_model))
    k = np.arange(1, max_len + 1)
    for i in range(d_model // 2):
        den = 10000.0 ** (2 * i / d_model)
        P[:, 2 * i] = np.sin(k / den)
        P[:, 2 * i + 1] = np.cos(k / den)
    return P


def add_positional_encoding(x, base=10000.0):
    x = np.asarray(x)
    return x + sinusoidal_pe(x.shape[-2], x.shape[-1], base)
