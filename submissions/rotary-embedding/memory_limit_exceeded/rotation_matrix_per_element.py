"""Memory limit exceeded: a full d x d rotation matrix per position (4096 x 512 x 512 float64 = 8 GiB)."""
import numpy as np


def rope_angles(max_len, d, base=10000.0):
    if d % 2:
        raise ValueError("d must be even")
    return np.arange(max_len)[:, None] * base ** (-np.arange(0, d, 2) / d)


def apply_rope(x, positions=None, base=10000.0):
    t, d = x.shape[-2:]
    if d % 2:
        raise ValueError("d must be even")
    pos = np.arange(t) if positions is None else np.asarray(positions)
    theta = pos[:, None] * base ** (-np.arange(0, d, 2) / d)
    rot = np.zeros((t, d, d))
    i = np.arange(d // 2)
    rot[:, 2 * i, 2 * i] = np.cos(theta)
    rot[:, 2 * i, 2 * i + 1] = -np.sin(theta)
    rot[:, 2 * i + 1, 2 * i] = np.sin(theta)
    rot[:, 2 * i + 1, 2 * i + 1] = np.cos(theta)
    return np.einsum("tij,...tj->...ti", rot, x)
