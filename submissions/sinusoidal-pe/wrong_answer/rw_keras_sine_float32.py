"""Real-world formulation (a Keras-style SinePositionEncoding layer, in my words): timescales
base**(-2*(j//2)/d) for every column, a sin/cos mask by column parity, computed in the layer's
float32 compute dtype.  The odd last column is filled with a sine, and the arithmetic is float32."""
# diagnosis: odd_last_column_not_zero+float32_precision
import numpy as np


def sinusoidal_pe(max_len, d_model, base=10000.0):
    f32 = np.float32
    j = np.arange(d_model)
    timescales = np.power(f32(base), (-2 * (j // 2)).astype(f32) / f32(d_model))
    angles = np.arange(max_len, dtype=f32)[:, None] * timescales[None, :]
    sin_mask = (j % 2 == 0).astype(f32)
    return np.sin(angles) * sin_mask + np.cos(angles) * (1 - sin_mask)


def add_positional_encoding(x, base=10000.0):
    x = np.asarray(x)
    return x + sinusoidal_pe(x.shape[-2], x.shape[-1], base).astype(np.float64)
