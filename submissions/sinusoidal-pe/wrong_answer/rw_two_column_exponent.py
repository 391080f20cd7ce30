"""Real-world formulation (a forum answer's loop, translated): "10000 ** (2 * i / d)" with i running
over every column instead of over pairs, sin on even columns and cos on odd ones.  Outside the bank."""
# diagnosis: none
# facts: exponent=two_column,odd=filled
import numpy as np


def sinusoidal_pe(max_len, d_model, base=10000.0):
    pe = np.empty((max_len, d_model))
    pos = np.arange(max_len)
    for i in range(d_model):
        value = pos / (base ** ((2 * i) / d_model))
        pe[:, i] = np.sin(value) if i % 2 == 0 else np.cos(value)
    return pe


def add_positional_encoding(x, base=10000.0):
    x = np.asarray(x)
    return x + sinusoidal_pe(x.shape[-2], x.shape[-1], base)
