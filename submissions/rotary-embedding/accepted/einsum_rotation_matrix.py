"""Accepted: an explicit 2x2 rotation matrix per (position, pair), applied with einsum."""
import numpy as np


def rope_angles(max_len, d, base=10000.0):
    if d % 2:
        raise ValueError("d must be even")
    return np.einsum("p,i->pi", np.arange(max_len, dtype=float), base ** (-2.0 * np.arange(d // 2) / d))


def apply_rope(x, positions=None, base=10000.0):
    *lead, t, d = x.shape
    if d % 2:
        raise ValueError("d must be even")
    p = np.arange(t, dtype=float) if positions is None else np.asarray(positions, dtype=float)
    theta = np.einsum("p,i->pi", p, base ** (-2.0 * np.arange(d // 2) / d))
    c, s = np.cos(theta), np.sin(theta)
    rot = np.stack([np.stack([c, -s], -1), np.stack([s, c], -1)], -2)  # (T, d/2, 2, 2)
    pairs = np.asarray(x, dtype=float).reshape(*lead, t, d // 2, 2)
    # out[..., t, i, a] = sum_b rot[t, i, a, b] * pairs[..., t, i, b], one output row a at a time
    rows = [np.einsum("tib,...tib->...ti", rot[:, :, a, :], pairs) for a in (0, 1)]
    return np.stack(rows, axis=-1).reshape(x.shape)
