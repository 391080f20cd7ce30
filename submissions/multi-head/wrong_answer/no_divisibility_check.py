"""Wrong answer: no check that n_heads divides D: the leftover columns are simply cut off."""
# diagnosis: remainder_dropped
import numpy as np


def split_heads(x, n_heads):
    dh = x.shape[-1] // n_heads
    x = x[..., :n_heads * dh]
    return np.swapaxes(x.reshape(x.shape[:-1] + (n_heads, dh)), -3, -2)


def merge_heads(x):
    x = np.swapaxes(x, -3, -2)
    return x.reshape(x.shape[:-2] + (-1,))
