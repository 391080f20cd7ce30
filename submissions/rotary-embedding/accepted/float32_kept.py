"""Accepted: angles in float64, the result cast back to x's dtype (float32 x gives float32)."""
import numpy as np


def rope_angles(max_len, d, base=10000.0):
    if d % 2:
        raise ValueError("d must be even")
    return np.arange(max_len, dtype=np.float64)[:, None] * np.power(base, -np.arange(0, d, 2) / d)


def apply_rope(x, positions=None, base=10000.0):
    x = np.asarray(x)
    t, d = x.shape[-2:]
    if d % 2:
        raise ValueError("d must be even")
    pos = np.arange(t) if positions is None else positions
    theta = np.asarray(pos, dtype=np.float64)[:, None] * np.power(base, -np.arange(0, d, 2) / d)
    cos, sin = np.cos(theta), np.sin(theta)
    xe, xo = x[..., ::2].astype(np.float64), x[..., 1::2].astype(np.float64)
    out = np.stack([xe * cos - xo * sin, xe * sin + xo * cos], axis=-1).reshape(x.shape)
    return out.astype(x.dtype if x.dtype == np.float32 else np.float64)
