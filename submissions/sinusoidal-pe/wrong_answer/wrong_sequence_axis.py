"""Wrong answer: takes the sequence length from x.shape[0] (the batch axis for batched
input); the table is then cut or zero-padded to fit, so batched results are wrong."""
# diagnosis: wrong_sequence_axis
import numpy as np


def sinusoidal_pe(max_len, d_model, base=10000.0):
    pe = np.zeros((max_len, d_model))
    n = d_model // 2
    ang = np.arange(max_len)[:, None] / base ** (2 * np.arange(n) / d_model)
    pe[:, 0:2 * n:2] = np.sin(ang)
    pe[:, 1:2 * n:2] = np.cos(ang)
    return pe


def add_positional_encoding(x, base=10000.0):
    x = np.asarray(x)
    seq_len = x.shape[0]  # bug: right only for 2-D input
    d_model = x.shape[-1]
    pe = sinusoidal_pe(seq_len, d_model, base)
    rows = x.shape[-2]
    if pe.shape[0] >= rows:
        pe = pe[:rows]
    else:
        pe = np.concatenate([pe, np.zeros((rows - pe.shape[0], d_model))], axis=0)
    return x + pe
