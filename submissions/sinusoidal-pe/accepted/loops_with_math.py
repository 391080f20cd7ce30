"""Accepted: loop-based style - a Python loop over the sin/cos pairs, the frequency of
each pair computed with the math module, each column filled with one numpy call."""
import math

import numpy as np


def sinusoidal_pe(max_len, d_model, base=10000.0):
    pe = np.zeros((max_len, d_model))
    positions = np.arange(max_len, dtype=np.float64)
    for i in range(d_model // 2):
        divisor = math.pow(base, (2 * i) / d_model)
        angle = positions / divisor
        pe[:, 2 * i] = np.sin(angle)
        pe[:, 2 * i + 1] = np.cos(angle)
    # for odd d_model the last column (index d_model - 1) is never touched: stays 0
    return pe


def add_positional_encoding(x, base=10000.0):
    x = np.asarray(x)
    seq_len, d_model = x.shape[-2], x.shape[-1]
    pe = sinusoidal_pe(seq_len, d_model, base)
    out = x + pe  # new array; broadcasting covers any number of leading axes
    return out
