"""Real-world formulation (a JAX/Flax-style layer, translated): div_term = base**(arange(d//2)/d),
interleaved correctly, but the exponent uses i where it needs 2i."""
# diagnosis: exponent_uses_i_not_2i
import numpy as np


def sinusoidal_pe(max_len, d_model, base=10000.0):
    div_term = np.power(base, np.arange(d_model // 2) / d_model)
    pe = np.zeros((max_len, d_model))
    arg = np.arange(max_len)[:, None] / div_term
    pe[:, 0:2 * (d_model // 2):2] = np.sin(arg)
    pe[:, 1:2 * (d_model // 2):2] = np.cos(arg)
    return pe


def add_positional_encoding(x, base=10000.0):
    x = np.asarray(x)
    return x + sinusoidal_pe(x.shape[-2], x.shape[-1], base)
