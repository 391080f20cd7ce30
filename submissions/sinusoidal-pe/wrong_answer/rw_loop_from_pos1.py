"""Real-world formulation (a homework loop over column pairs, in my words): "position 0 is all zeros anyway", so the
loop starts at pos = 1 and row 0 stays at zero - but cos(0) = 1.  Not a banked mistake."""
# diagnosis: none
# facts: row0=zeroed
import math

import numpy as np


def sinusoidal_pe(max_len, d_model, base=10000.0):
    pe = np.zeros((max_len, d_model))
    for i in range(d_model // 2):  # one column pair at a time, positions 1.. only
        angle = np.arange(1, max_len) / math.pow(base, 2 * i / d_model)
        pe[1:, 2 * i] = np.sin(angle)
        pe[1:, 2 * i + 1] = np.cos(angle)
    return pe


def add_positional_encoding(x, base=10000.0):
    x = np.asarray(x)
    return x + sinusoidal_pe(x.shape[-2], x.shape[-1], base)
