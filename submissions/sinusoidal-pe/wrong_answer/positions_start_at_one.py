"""Wrong answer: positions counted 1..max_len instead of 0..max_len-1."""
# diagnosis: positions_start_at_one
import numpy as np


def sinusoidal_pe(max_len, d_model, base=10000.0):
    pe = np.zeros((max_len, d_model))
    n = d_model // 2
    pos = np.arange(1, max_len + 1)[:, None]
    ang = pos / base ** (2 * np.arange(n) / d_model)
    pe[:, 0:2 * n:2] = np.sin(ang)
    pe[:, 1:2 * n:2] = np.cos(ang)
    return pe


def add_positional_encoding(x, base=10000.0):
    x = np.asarray(x)
    return x + sinusoidal_pe(x.shape[-2], x.shape[-1], base)
