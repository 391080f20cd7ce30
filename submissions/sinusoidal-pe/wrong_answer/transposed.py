"""Wrong answer: builds the table as (d_model, max_len) and returns it that way
(transposed); add uses the correct orientation internally."""
# diagnosis: transposed
import numpy as np


def _table(max_len, d_model, base):
    pe = np.zeros((d_model, max_len))
    n = d_model // 2
    ang = np.arange(max_len)[None, :] / base ** (2 * np.arange(n)[:, None] / d_model)
    pe[0:2 * n:2, :] = np.sin(ang)
    pe[1:2 * n:2, :] = np.cos(ang)
    return pe


def sinusoidal_pe(max_len, d_model, base=10000.0):
    return _table(max_len, d_model, base)


def add_positional_encoding(x, base=10000.0):
    x = np.asarray(x)
    return x + _table(x.shape[-2], x.shape[-1], base).T
