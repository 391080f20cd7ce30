"""Real-world formulation (the padded fix, then the last column cleared "as the statement says"):
the exponent still divides by d+1 for odd d_model.  Outside the bank."""
# diagnosis: none
# facts: divisor=padded
import numpy as np


def sinusoidal_pe(max_len, d_model, base=10000.0):
    width = d_model + d_model % 2
    pe = np.zeros((max_len, width))
    pos = np.arange(max_len)[:, None]
    div = np.power(base, np.arange(0, width, 2) / width)
    pe[:, 0::2] = np.sin(pos / div)
    pe[:, 1::2] = np.cos(pos / div)
    pe = pe[:, :d_model].copy()
    if d_model % 2:
        pe[:, -1] = 0.0
    return pe


def add_positional_encoding(x, base=10000.0):
    x = np.asarray(x)
    return x + sinusoidal_pe(x.shape[-2], x.shape[-1], base)
