"""Accepted: the "exp(-log(base) * 2i / d)" formulation of the inverse frequencies,
as seen in many transformer code bases."""
import math

import numpy as np


def sinusoidal_pe(max_len, d_model, base=10000.0):
    pe = np.zeros((max_len, d_model))
    position = np.arange(max_len, dtype=np.float64)[:, None]
    two_i = np.arange(0, 2 * (d_model // 2), 2, dtype=np.float64)
    div_term = np.exp(two_i * (-math.log(base) / d_model))
    end = 2 * (d_model // 2)
    pe[:, 0:end:2] = np.sin(position * div_term)
    pe[:, 1:end:2] = np.cos(position * div_term)
    return pe


def add_positional_encoding(x, base=10000.0):
    x = np.asarray(x)
    return np.add(x, sinusoidal_pe(x.shape[-2], x.shape[-1], base))
