"""Wrong answer: correct table, but add does `x += pe` in place and returns x,
so the caller's input array is modified."""
# diagnosis: input_mutated
import numpy as np


def sinusoidal_pe(max_len, d_model, base=10000.0):
    pe = np.zeros((max_len, d_model))
    n = d_model // 2
    ang = np.arange(max_len)[:, None] / base ** (2 * np.arange(n) / d_model)
    pe[:, 0:2 * n:2] = np.sin(ang)
    pe[:, 1:2 * n:2] = np.cos(ang)
    return pe


def add_positional_encoding(x, base=10000.0):
    x += sinusoidal_pe(x.shape[-2], x.shape[-1], base)  # saves memory... and clobbers x
    return x
