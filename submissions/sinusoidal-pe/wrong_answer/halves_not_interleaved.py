"""Wrong answer: puts all sin columns in the first half and all cos columns in the
second half (concatenate) instead of interleaving them."""
# diagnosis: halves_not_interleaved
import numpy as np


def sinusoidal_pe(max_len, d_model, base=10000.0):
    n = d_model // 2
    ang = np.arange(max_len)[:, None] / base ** (2 * np.arange(n) / d_model)
    parts = [np.sin(ang), np.cos(ang)]
    if d_model % 2:
        parts.append(np.zeros((max_len, 1)))
    return np.concatenate(parts, axis=1)


def add_positional_encoding(x, base=10000.0):
    x = np.asarray(x)
    return x + sinusoidal_pe(x.shape[-2], x.shape[-1], base)
