"""Wrong answer: takes the positions from axis 0 (the batch axis once x has one)."""
# diagnosis: wrong_sequence_axis
import numpy as np


def rope_angles(max_len, d, base=10000.0):
    if d % 2:
        raise ValueError("d must be even")
    return np.arange(max_len)[:, None] * base ** (-np.arange(0, d, 2) / d)


def apply_rope(x, positions=None, base=10000.0):
    d = x.shape[-1]
    if d % 2:
        raise ValueError("d must be even")
    freq = base ** (-np.arange(0, d, 2) / d)
    if positions is None:
        seq = x.shape[0]  # the sequence length... of the first axis
        theta = (np.arange(seq)[:, None] * freq).reshape((seq,) + (1,) * (x.ndim - 2) + freq.shape)
    else:
        theta = np.asarray(positions)[:, None] * freq
    c, s = np.cos(theta), np.sin(theta)
    out = np.empty(x.shape)
    out[..., 0::2] = x[..., 0::2] * c - x[..., 1::2] * s
    out[..., 1::2] = x[..., 0::2] * s + x[..., 1::2] * c
    return out
