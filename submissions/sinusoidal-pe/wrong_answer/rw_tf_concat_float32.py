"""Real-world formulation (the newer TensorFlow tutorial, translated): depth = d/2, angle rates
1/10000**(i/depth), then concatenate [sin, cos] along the last axis and keep everything in float32
("the model runs in float32 anyway").  Two mistakes at once: halves instead of interleaved, and
float32 arithmetic."""
# diagnosis: halves_not_interleaved+float32_precision
import numpy as np


def sinusoidal_pe(max_len, d_model, base=10000.0):
    depth = d_model // 2
    positions = np.arange(max_len, dtype=np.float32)[:, None]
    depths = np.arange(depth, dtype=np.float32)[None, :] / np.float32(d_model / 2)
    rates = np.float32(1) / np.power(np.float32(base), depths)
    angle = positions * rates
    out = np.zeros((max_len, d_model), dtype=np.float32)
    out[:, :2 * depth] = np.concatenate([np.sin(angle), np.cos(angle)], axis=-1)
    return out


def add_positional_encoding(x, base=10000.0):
    x = np.asarray(x)
    return x + sinusoidal_pe(x.shape[-2], x.shape[-1], base)
