"""Wrong answer: for odd d_model the exponent divides by the number of filled
columns (d_model - 1) instead of by d_model."""
# diagnosis: odd_exponent_wrong_d
import numpy as np


def sinusoidal_pe(max_len, d_model, base=10000.0):
    pe = np.zeros((max_len, d_model))
    used = d_model - (d_model % 2)  # columns that get a value
    n = used // 2
    ang = np.arange(max_len)[:, None] / base ** (2 * np.arange(n) / max(used, 1))
    pe[:, 0:used:2] = np.sin(ang)
    pe[:, 1:used:2] = np.cos(ang)
    return pe


def add_positional_encoding(x, base=10000.0):
    x = np.asarray(x)
    return x + sinusoidal_pe(x.shape[-2], x.shape[-1], base)
