"""Wrong answer: rotate_half as in Hugging Face's LLaMA: pairs (i, i + d/2)."""
# diagnosis: half_split_convention
import numpy as np


def rope_angles(max_len, d, base=10000.0):
    if d % 2:
        raise ValueError("d must be even")
    return np.arange(max_len, dtype=np.float64)[:, None] * base ** (-np.arange(0, d, 2) / d)


def apply_rope(x, positions=None, base=10000.0):
    t, d = x.shape[-2], x.shape[-1]
    if d % 2:
        raise ValueError("d must be even")
    pos = np.arange(t) if positions is None else positions
    theta = np.asarray(pos, dtype=np.float64)[:, None] * base ** (-np.arange(0, d, 2) / d)
    c, s = np.cos(theta).astype(np.float64), np.sin(theta).astype(np.float64)
    half = d // 2
    x1, x2 = x[..., :half], x[..., half:]
    return np.concatenate([x1 * c - x2 * s, x1 * s + x2 * c], axis=-1)
