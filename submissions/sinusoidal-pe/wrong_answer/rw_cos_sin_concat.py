"""Real-world formulation (a "rotary-style" habit carried over, translated): cos first, then sin,
concatenated in two halves.  Two banked mistakes together."""
# diagnosis: sin_cos_swapped+halves_not_interleaved
import numpy as np


def sinusoidal_pe(max_len, d_model, base=10000.0):
    h = d_model // 2
    w = base ** (-2.0 * np.arange(h) / d_model)
    a = np.arange(max_len)[:, None] * w
    pe = np.zeros((max_len, d_model))
    pe[:, :h] = np.cos(a)
    pe[:, h:2 * h] = np.sin(a)
    return pe


def add_positional_encoding(x, base=10000.0):
    x = np.asarray(x)
    return x + sinusoidal_pe(x.shape[-2], x.shape[-1], base)
