"""Accepted: stacks sin and cos on a new last axis and reshapes to interleave them,
then pads one zero column when d_model is odd."""
import numpy as np


def sinusoidal_pe(max_len, d_model, base=10000.0):
    pos = np.arange(max_len, dtype=np.float64).reshape(-1, 1)
    expo = np.arange(d_model // 2, dtype=np.float64) * 2 / d_model
    ang = pos / base ** expo
    pe = np.stack([np.sin(ang), np.cos(ang)], axis=-1).reshape(max_len, -1)
    if d_model % 2 == 1:
        pe = np.concatenate([pe, np.zeros((max_len, 1))], axis=1)
    return np.ascontiguousarray(pe, dtype=np.float64)


def add_positional_encoding(x, base=10000.0):
    x = np.asarray(x)
    return x + sinusoidal_pe(x.shape[-2], x.shape[-1], base)
