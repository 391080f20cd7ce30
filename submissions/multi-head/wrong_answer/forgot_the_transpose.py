"""Wrong answer: split_heads stops after the reshape, leaving (..., T, H, Dh); merge_heads is right."""
# diagnosis: heads_axis_not_moved
import numpy as np


def split_heads(x, n_heads):
    d_head, rem = divmod(x.shape[-1], n_heads)
    if rem:
        raise ValueError("d_model % n_heads != 0")
    return x.reshape(x.shape[:-1] + (n_heads, d_head))


def merge_heads(x):
    x = np.swapaxes(x, -3, -2)
    return x.reshape(x.shape[:-2] + (x.shape[-2] * x.shape[-1],))
