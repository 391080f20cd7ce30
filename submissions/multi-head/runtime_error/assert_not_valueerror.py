"""Runtime error: an assert where the statement asks for ValueError (AssertionError is another exception)."""
import numpy as np


def split_heads(x, n_heads):
    assert x.shape[-1] % n_heads == 0, "n_heads must divide d_model"
    *lead, t, d = x.shape
    return np.swapaxes(x.reshape(*lead, t, n_heads, d // n_heads), -3, -2)


def merge_heads(x):
    *lead, h, t, dh = x.shape
    return np.swapaxes(x, -3, -2).reshape(*lead, t, h * dh)
