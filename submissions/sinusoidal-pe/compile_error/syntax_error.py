"""Compile error: a missing closing parenthesis (syntax error)."""
import numpy as np


def sinusoidal_pe(max_len, d_model, base=10000.0):
    pe = np.zeros((max_len, d_model)
    ang = np.arange(max_len)[:, None] / base ** (2 * np.arange(d_model // 2) / d_model)
    pe[:, 0:2 * (d_model // 2):2] = np.sin(ang)
    pe[:, 1:2 * (d_model // 2):2] = np.cos(ang)
    return pe


def add_positional_encoding(x, base=10000.0):
    return np.asarray(x) + sinusoidal_pe(x.shape[-2], x.shape[-1], base)
