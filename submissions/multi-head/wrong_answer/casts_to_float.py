"""Wrong answer: casts x to float64 first, so a float32 or int64 x comes back float64 (no name: the values are
right, the dtype message says it)."""
# diagnosis: none
import numpy as np


def split_heads(x, n_heads):
    x = np.asarray(x, dtype=float)
    *lead, t, d = x.shape
    if d % n_heads:
        raise ValueError("n_heads does not divide d")
    return np.swapaxes(x.reshape(*lead, t, n_heads, d // n_heads), -3, -2)


def merge_heads(x):
    x = np.asarray(x, dtype=float)
    *lead, h, t, dh = x.shape
    return np.swapaxes(x, -3, -2).reshape(*lead, t, h * dh)
