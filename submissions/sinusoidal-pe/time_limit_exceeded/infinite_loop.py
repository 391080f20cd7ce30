"""Time limit exceeded: a `while True` loop meant to fill the table pair by pair,
but the break condition compares against the wrong counter, so it never ends."""
import numpy as np


def sinusoidal_pe(max_len, d_model, base=10000.0):
    pe = np.zeros((max_len, d_model))
    pos = np.arange(max_len, dtype=np.float64)
    i = 0
    filled = 0
    while True:
        if i < d_model // 2:
            ang = pos / base ** (2 * i / d_model)
            pe[:, 2 * i] = np.sin(ang)
            pe[:, 2 * i + 1] = np.cos(ang)
            i += 1
        if filled == d_model:  # bug: `filled` is never updated
            break
    return pe


def add_positional_encoding(x, base=10000.0):
    x = np.asarray(x)
    return x + sinusoidal_pe(x.shape[-2], x.shape[-1], base)
