"""Wrong answer: w_i = base ** (+2i/d)."""
# diagnosis: frequencies_grow
import numpy as np


def rope_angles(max_len, d, base=10000.0):
    if d % 2:
        raise ValueError("d must be even")
    return np.arange(max_len, dtype=np.float64)[:, None] * base ** (np.arange(0, d, 2) / d)


def apply_rope(x, positions=None, base=10000.0):
    t, d = x.shape[-2], x.shape[-1]
    if d % 2:
        raise ValueError("d must be even")
    pos = np.arange(t) if positions is None else positions
    theta = np.asarray(pos, dtype=np.float64)[:, None] * base ** (np.arange(0, d, 2) / d)
    c, s = np.cos(theta).astype(np.float64), np.sin(theta).astype(np.float64)
    out = np.empty(x.shape)
    out[..., 0::2] = x[..., 0::2] * c - x[..., 1::2] * s
    out[..., 1::2] = x[..., 0::2] * s + x[..., 1::2] * c
    return out
