"""Wrong answer: column 0 is computed as sin(p*w) * (p / p), which is 0/0 = NaN at
position 0 (the NaN must be rejected, not compared as "close")."""
# diagnosis: non_finite
import numpy as np


def sinusoidal_pe(max_len, d_model, base=10000.0):
    pe = np.zeros((max_len, d_model))
    n = d_model // 2
    pos = np.arange(max_len, dtype=np.float64)[:, None]
    ang = pos / base ** (2 * np.arange(n) / d_model)
    pe[:, 0:2 * n:2] = np.sin(ang)
    pe[:, 1:2 * n:2] = np.cos(ang)
    with np.errstate(divide="ignore", invalid="ignore"):
        pe[:, 0] = pe[:, 0] * (pos[:, 0] / pos[:, 0])
    return pe


def add_positional_encoding(x, base=10000.0):
    x = np.asarray(x)
    return x + sinusoidal_pe(x.shape[-2], x.shape[-1], base)
