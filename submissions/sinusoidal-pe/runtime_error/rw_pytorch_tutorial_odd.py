"""Real-world formulation (the PyTorch tutorial's PositionalEncoding, translated to numpy):
div_term = exp(arange(0, d, 2) * -log(base)/d); pe[:, 0::2] = sin; pe[:, 1::2] = cos.  For odd d_model
the cos slice is one column short of div_term: a broadcasting error on (almost) every odd case."""
import math

import numpy as np


def sinusoidal_pe(max_len, d_model, base=10000.0):
    pe = np.zeros((max_len, d_model))
    position = np.arange(max_len)[:, None]
    div_term = np.exp(np.arange(0, d_model, 2) * (-math.log(base) / d_model))
    pe[:, 0::2] = np.sin(position * div_term)
    pe[:, 1::2] = np.cos(position * div_term)
    return pe


def add_positional_encoding(x, base=10000.0):
    x = np.asarray(x)
    return x + sinusoidal_pe(x.shape[-2], x.shape[-1], base)
