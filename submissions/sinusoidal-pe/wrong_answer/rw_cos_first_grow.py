"""Real-world formulation (homework, translated): cos in the even columns and sin in the odd ones,
and the position multiplied by 10000**(2i/d) instead of divided.  Two banked mistakes together."""
# diagnosis: sin_cos_swapped+frequencies_grow
import numpy as np


def sinusoidal_pe(max_len, d_model, base=10000.0):
    n = d_model // 2
    scale = base ** (2.0 * np.arange(n) / d_model)
    theta = np.outer(np.arange(max_len), scale)
    pe = np.zeros((max_len, d_model))
    pe[:, 0:2 * n:2] = np.cos(theta)
    pe[:, 1:2 * n:2] = np.sin(theta)
    return pe


def add_positional_encoding(x, base=10000.0):
    x = np.asarray(x)
    return x + sinusoidal_pe(x.shape[-2], x.shape[-1], base)
