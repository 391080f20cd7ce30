"""Real-world formulation (a blog post's compact version, translated): inverse frequencies
base**(-i/d) for i < d/2 (the pair index not doubled), then sin and cos concatenated."""
# diagnosis: halves_not_interleaved+exponent_uses_i_not_2i
import numpy as np


def sinusoidal_pe(max_len, d_model, base=10000.0):
    half = d_model // 2
    inv_freq = 1.0 / base ** (np.arange(half) / d_model)
    t = np.arange(max_len)[:, None] * inv_freq[None, :]
    out = np.zeros((max_len, d_model))
    out[:, :2 * half] = np.concatenate([np.sin(t), np.cos(t)], axis=1)
    return out


def add_positional_encoding(x, base=10000.0):
    x = np.asarray(x)
    return x + sinusoidal_pe(x.shape[-2], x.shape[-1], base)
