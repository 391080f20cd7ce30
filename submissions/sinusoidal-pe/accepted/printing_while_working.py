"""Accepted: correct solution that prints a few progress lines on every call
(stdout chatter must not disturb the judge)."""
import numpy as np


def sinusoidal_pe(max_len, d_model, base=10000.0):
    print(f"building table max_len={max_len} d_model={d_model} base={base}")
    pe = np.zeros((max_len, d_model))
    k = d_model // 2
    angles = np.arange(max_len)[:, None] / base ** (np.arange(k) * 2 / d_model)
    print("angles ready, shape", angles.shape)
    pe[:, :2 * k:2] = np.sin(angles)
    pe[:, 1:2 * k:2] = np.cos(angles)
    print("done, first row:", pe[0, :min(d_model, 4)])
    return pe


def add_positional_encoding(x, base=10000.0):
    x = np.asarray(x)
    print("adding encoding to input of shape", x.shape, "dtype", x.dtype)
    return x + sinusoidal_pe(x.shape[-2], x.shape[-1], base)
