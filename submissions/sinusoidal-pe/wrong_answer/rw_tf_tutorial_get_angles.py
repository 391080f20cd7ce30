"""Real-world formulation (the TensorFlow transformer tutorial's get_angles, in my own words):
every column j gets the angle pos / 10000**(2*(j//2)/d), then sin on even columns and cos on odd
ones.  Right for even d_model; for odd d_model the unpaired last column (even index) gets a sine."""
# diagnosis: odd_last_column_not_zero
import numpy as np


def _angles(pos, j, d_model, base):
    return pos / np.power(base, (2 * (j // 2)) / np.float64(d_model))


def sinusoidal_pe(max_len, d_model, base=10000.0):
    rads = _angles(np.arange(max_len)[:, np.newaxis], np.arange(d_model)[np.newaxis, :], d_model, base)
    rads[:, 0::2] = np.sin(rads[:, 0::2])
    rads[:, 1::2] = np.cos(rads[:, 1::2])
    return rads


def add_positional_encoding(x, base=10000.0):
    x = np.asarray(x)
    return x + sinusoidal_pe(x.shape[-2], x.shape[-1], base)
