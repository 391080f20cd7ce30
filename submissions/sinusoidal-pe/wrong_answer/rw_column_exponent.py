"""Real-world formulation (a blog post's version, translated): the exponent uses the column index j
itself, pos / 10000**(j/d), sin on even columns and cos on odd ones - so each cosine column gets its
own frequency, and the odd last column a sine.  Outside the bank."""
# diagnosis: none
# facts: exponent=column,odd=filled
import numpy as np


def sinusoidal_pe(max_len, d_model, base=10000.0):
    j = np.arange(d_model)
    angles = np.arange(max_len)[:, None] / np.power(base, j / d_model)[None, :]
    return np.where(j % 2 == 0, np.sin(angles), np.cos(angles))


def add_positional_encoding(x, base=10000.0):
    x = np.asarray(x)
    return x + sinusoidal_pe(x.shape[-2], x.shape[-1], base)
