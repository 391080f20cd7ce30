"""Wrong answer: reshapes straight to (..., H, T, Dh) and back, no transpose."""
# diagnosis: reshape_without_transpose
import numpy as np


def split_heads(x, n_heads):
    *lead, t, d = x.shape
    if d % n_heads:
        raise ValueError("n_heads does not divide d")
    return x.reshape(*lead, n_heads, t, d // n_heads)


def merge_heads(x):
    *lead, h, t, dh = x.shape
    return x.reshape(*lead, t, h * dh)
