"""Wrong answer: computes the whole table in float32 ("saves memory"), losing
precision - visibly wrong at large positions, and the table dtype is float32."""
# diagnosis: float32_precision
import numpy as np


def sinusoidal_pe(max_len, d_model, base=10000.0):
    pe = np.zeros((max_len, d_model), dtype=np.float32)
    n = d_model // 2
    pos = np.arange(max_len, dtype=np.float32)[:, None]
    expo = (2 * np.arange(n, dtype=np.float32) / np.float32(d_model)).astype(np.float32)
    ang = pos / np.power(np.float32(base), expo)
    pe[:, 0:2 * n:2] = np.sin(ang)
    pe[:, 1:2 * n:2] = np.cos(ang)
    return pe


def add_positional_encoding(x, base=10000.0):
    x = np.asarray(x)
    return x + sinusoidal_pe(x.shape[-2], x.shape[-1], base)
