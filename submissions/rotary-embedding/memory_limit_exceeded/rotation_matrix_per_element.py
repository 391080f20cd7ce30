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
    mats = []  # one full d x d rotation matrix per position, kept: 4096 x 2 MiB = 8 GiB at the largest case
    for row in range(t):
        m = np.eye(d) * 1.0  # a new matrix, every page written
        for i in range(d // 2):
            c, s = np.cos(theta[row, i]), np.sin(theta[row, i])
            m[2 * i:2 * i + 2, 2 * i:2 * i + 2] = [[c, -s], [s, c]]
        mats.append(m)
    return np.einsum("tij,...tj->...ti", np.stack(mats), x)
