"""Runtime error: the learner asserts d_model is even (forgetting the odd case),
so the public (2, 5) example raises AssertionError."""
import numpy as np


def sinusoidal_pe(max_len, d_model, base=10000.0):
    assert d_model % 2 == 0, "d_model must be even"
    pos = np.arange(max_len)[:, None]
    ang = pos / base ** (np.arange(0, d_model, 2) / d_model)
    pe = np.empty((max_len, d_model))
    pe[:, 0::2] = np.sin(ang)
    pe[:, 1::2] = np.cos(ang)
    return pe


def add_positional_encoding(x, base=10000.0):
    x = np.asarray(x)
    return x + sinusoidal_pe(x.shape[-2], x.shape[-1], base)
