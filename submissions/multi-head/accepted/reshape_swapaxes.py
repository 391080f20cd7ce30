"""Accepted: reshape to (..., T, H, Dh), then swap the T and head axes; merge undoes it."""
import numpy as np


def split_heads(x, n_heads):
    *batch, t, d = x.shape
    if d % n_heads != 0:
        raise ValueError(f"d_model={d} is not divisible by n_heads={n_heads}")
    return np.swapaxes(x.reshape(*batch, t, n_heads, d // n_heads), -3, -2)


def merge_heads(x):
    *batch, h, t, dh = x.shape
    return np.swapaxes(x, -3, -2).reshape(*batch, t, h * dh)
