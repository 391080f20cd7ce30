"""Runtime error: a real bug - the loop writes column i+1 for every even i, which is
out of range when d_model is odd (IndexError already on the public (2, 5) example)."""
import numpy as np


def sinusoidal_pe(max_len, d_model, base=10000.0):
    pe = np.zeros((max_len, d_model))
    pos = np.arange(max_len, dtype=np.float64)
    for i in range(0, d_model, 2):
        ang = pos / base ** (i / d_model)
        pe[:, i] = np.sin(ang)
        pe[:, i + 1] = np.cos(ang)  # IndexError for odd d_model
    return pe


def add_positional_encoding(x, base=10000.0):
    x = np.asarray(x)
    return x + sinusoidal_pe(x.shape[-2], x.shape[-1], base)
