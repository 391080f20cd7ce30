"""Runtime error: unpacks `t, d = x.shape`, which raises as soon as x has a batch axis
(the odd-d example passes: its ValueError is the right one)."""
import numpy as np


def rope_angles(max_len, d, base=10000.0):
    if d % 2:
        raise ValueError("d must be even")
    return np.arange(max_len)[:, None] * base ** (-np.arange(0, d, 2) / d)


def apply_rope(x, positions=None, base=10000.0):
    t, d = x.shape  # breaks as soon as x has a batch axis
    if d % 2:
        raise ValueError("d must be even")
    pos = np.arange(t) if positions is None else np.asarray(positions)
    theta = pos[:, None] * base ** (-np.arange(0, d, 2) / d)
    pairs = x.reshape(t, d // 2, 2)
    c, s = np.cos(theta), np.sin(theta)
    return np.stack([pairs[..., 0] * c - pairs[..., 1] * s, pairs[..., 0] * s + pairs[..., 1] * c], -1).reshape(t, d)
