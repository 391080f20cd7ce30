"""Wrong answer: for odd d_model fills the unpaired last column with a sine
(using every even index 0, 2, ..., d-1) instead of leaving it 0."""
# diagnosis: odd_last_column_not_zero
import numpy as np


def sinusoidal_pe(max_len, d_model, base=10000.0):
    pe = np.zeros((max_len, d_model))
    even = np.arange(0, d_model, 2)  # includes d_model-1 when d_model is odd
    ang = np.arange(max_len)[:, None] / base ** (even / d_model)
    pe[:, 0::2] = np.sin(ang)
    pe[:, 1::2] = np.cos(ang[:, : d_model // 2])
    return pe


def add_positional_encoding(x, base=10000.0):
    x = np.asarray(x)
    return x + sinusoidal_pe(x.shape[-2], x.shape[-1], base)
