"""Real-world formulation (a common fix for odd widths, translated): build the table for the next
even width d+1 and cut it to d columns.  The exponent then divides by d+1 and the last column holds a
sine.  A variant of the banked odd-d mistakes (d+1, not d-1): no banked name fits."""
# diagnosis: none
# facts: divisor=padded,odd=filled
import numpy as np


def _even_table(max_len, width, base):
    pe = np.zeros((max_len, width))
    pos = np.arange(max_len)[:, None]
    div = np.power(base, np.arange(0, width, 2) / width)
    pe[:, 0::2] = np.sin(pos / div)
    pe[:, 1::2] = np.cos(pos / div)
    return pe


def sinusoidal_pe(max_len, d_model, base=10000.0):
    return _even_table(max_len, d_model + d_model % 2, base)[:, :d_model].copy()


def add_positional_encoding(x, base=10000.0):
    x = np.asarray(x)
    return x + sinusoidal_pe(x.shape[-2], x.shape[-1], base)
