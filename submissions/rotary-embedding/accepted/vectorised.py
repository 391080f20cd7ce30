"""Accepted: the textbook vectorised form with even/odd column slices."""
import numpy as np


def rope_angles(max_len, d, base=10000.0):
    if d % 2:
        raise ValueError("d must be even")
    inv_freq = 1.0 / (base ** (np.arange(0, d, 2) / d))
    return np.outer(np.arange(max_len), inv_freq)


def apply_rope(x, positions=None, base=10000.0):
    t, d = x.shape[-2], x.shape[-1]
    if d % 2:
        raise ValueError("the feature dimension must be even")
    pos = np.arange(t) if positions is None else np.asarray(positions)
    theta = pos[:, None] * (1.0 / (base ** (np.arange(0, d, 2) / d)))[None, :]
    c, s = np.cos(theta), np.sin(theta)
    x1, x2 = x[..., 0::2], x[..., 1::2]
    out = np.empty(x.shape, dtype=np.result_type(x.dtype, np.float64))
    out[..., 0::2] = x1 * c - x2 * s
    out[..., 1::2] = x1 * s + x2 * c
    return out
