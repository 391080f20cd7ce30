"""Real-world formulation (library layers often build the table in the input's dtype, e.g.
arange(..., dtype=x.dtype)): right for float64 x, but a float32 x gets float32 angles, off by ~1e-4
at position 4095.  Only the float32 input fails."""
# diagnosis: float32_precision
import numpy as np


def _table(max_len, d_model, base, dtype):
    n = d_model // 2
    pos = np.arange(max_len, dtype=dtype)[:, None]
    inv = np.power(dtype(base), -(2 * np.arange(n, dtype=dtype)) / dtype(d_model))
    pe = np.zeros((max_len, d_model), dtype=dtype)
    pe[:, 0:2 * n:2] = np.sin(pos * inv)
    pe[:, 1:2 * n:2] = np.cos(pos * inv)
    return pe


def sinusoidal_pe(max_len, d_model, base=10000.0):
    return _table(max_len, d_model, base, np.float64)


def add_positional_encoding(x, base=10000.0):
    x = np.asarray(x)
    dtype = np.float32 if x.dtype == np.float32 else np.float64
    return x + _table(x.shape[-2], x.shape[-1], base, dtype)
