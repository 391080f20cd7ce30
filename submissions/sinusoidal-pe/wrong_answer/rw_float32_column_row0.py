"""Real-world formulation (the issue's misleading case, rewritten): float32 arrays "to save memory",
a pair loop whose exponent uses the column index (2i for sin, 2i+1 for cos), and positions from 1,
leaving row 0 at zero.  Three mistakes; float32 is the least of them, so naming float32 would mislead."""
# diagnosis: none
# facts: dtype=float32,exponent=column,row0=zeroed
import numpy as np


def sinusoidal_pe(max_len, d_model, base=10000.0):
    pe = np.zeros((max_len, d_model), dtype=np.float32)
    pos = np.arange(1, max_len, dtype=np.float32)
    b = np.float32(base)
    for i in range(d_model // 2):
        pe[1:, 2 * i] = np.sin(pos / b ** np.float32(2 * i / d_model))
        pe[1:, 2 * i + 1] = np.cos(pos / b ** np.float32((2 * i + 1) / d_model))
    return pe


def add_positional_encoding(x, base=10000.0):
    x = np.asarray(x)
    return x + sinusoidal_pe(x.shape[-2], x.shape[-1], base)
