"""Wrong answer: right numbers, but returns nested Python lists (tolist())
instead of a numpy.ndarray."""
# diagnosis: not_ndarray
import numpy as np


def sinusoidal_pe(max_len, d_model, base=10000.0):
    pe = np.zeros((max_len, d_model))
    n = d_model // 2
    ang = np.arange(max_len)[:, None] / base ** (2 * np.arange(n) / d_model)
    pe[:, 0:2 * n:2] = np.sin(ang)
    pe[:, 1:2 * n:2] = np.cos(ang)
    return pe.tolist()


def add_positional_encoding(x, base=10000.0):
    x = np.asarray(x)
    return (x + np.array(sinusoidal_pe(x.shape[-2], x.shape[-1], base))).tolist()
