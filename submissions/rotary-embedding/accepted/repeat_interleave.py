"""Accepted: cos/sin tables repeated to full width and a 'rotate every pair' helper (GPT-NeoX style,
adapted to adjacent pairs)."""
import numpy as np


def rope_angles(max_len, d, base=10000.0):
    if d % 2:
        raise ValueError("d must be even")
    return np.arange(max_len)[:, None] / base ** (np.arange(0, d, 2) / d)


def _rotate_pairs(x):
    out = np.empty_like(x)
    out[..., 0::2] = -x[..., 1::2]
    out[..., 1::2] = x[..., 0::2]
    return out


def apply_rope(x, positions=None, base=10000.0):
    d = x.shape[-1]
    if d % 2:
        raise ValueError("d must be even")
    pos = np.arange(x.shape[-2]) if positions is None else np.asarray(positions)
    theta = np.repeat(pos[:, None] / base ** (np.arange(0, d, 2) / d), 2, axis=-1)
    xf = x.astype(np.float64)
    return xf * np.cos(theta) + _rotate_pairs(xf) * np.sin(theta)
