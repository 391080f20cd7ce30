"""Accepted: np.moveaxis, written with explicit shape tuples."""
import numpy as np


def split_heads(x, n_heads):
    x = np.asarray(x)
    d = x.shape[-1]
    if d % n_heads:
        raise ValueError("n_heads must divide the last dimension")
    new_shape = x.shape[:-1] + (n_heads, d // n_heads)
    return np.moveaxis(x.reshape(new_shape), -2, -3)


def merge_heads(x):
    x = np.asarray(x)
    moved = np.moveaxis(x, -3, -2)  # (..., T, H, Dh)
    return moved.reshape(moved.shape[:-2] + (moved.shape[-2] * moved.shape[-1],))
