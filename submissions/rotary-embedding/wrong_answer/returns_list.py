"""Wrong answer: right numbers, returned as nested lists."""
# diagnosis: not_ndarray
import numpy as np


def rope_angles(max_len, d, base=10000.0):
    if d % 2:
        raise ValueError("d must be even")
    return (np.arange(max_len)[:, None] * base ** (-np.arange(0, d, 2) / d)).tolist()


def apply_rope(x, positions=None, base=10000.0):
    d = x.shape[-1]
    if d % 2:
        raise ValueError("d must be even")
    pos = np.arange(x.shape[-2]) if positions is None else np.asarray(positions)
    theta = pos[:, None] * base ** (-np.arange(0, d, 2) / d)
    c, s = np.cos(theta), np.sin(theta)
    out = np.empty(x.shape)
    out[..., 0::2] = x[..., 0::2] * c - x[..., 1::2] * s
    out[..., 1::2] = x[..., 0::2] * s + x[..., 1::2] * c
    return out.tolist()
