"""Wrong answer: odd d is not rejected: the last column is left as it is."""
# diagnosis: odd_d_not_rejected
import numpy as np


def rope_angles(max_len, d, base=10000.0):
    return np.arange(max_len, dtype=np.float64)[:, None] * base ** (-np.arange(0, d, 2) / d)


def apply_rope(x, positions=None, base=10000.0):
    t, d = x.shape[-2], x.shape[-1]
    pos = np.arange(t) if positions is None else positions
    theta = np.asarray(pos, dtype=np.float64)[:, None] * base ** (-np.arange(0, d - d % 2, 2) / d)
    c, s = np.cos(theta).astype(np.float64), np.sin(theta).astype(np.float64)
    n = d // 2
    out = np.array(x, dtype=np.float64)
    out[..., 0:2 * n:2] = x[..., 0:2 * n:2] * c[:, :n] - x[..., 1:2 * n:2] * s[:, :n]
    out[..., 1:2 * n:2] = x[..., 0:2 * n:2] * s[:, :n] + x[..., 1:2 * n:2] * c[:, :n]
    return out
