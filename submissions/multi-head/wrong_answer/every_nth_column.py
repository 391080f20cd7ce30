"""Wrong answer: head h gets columns h, h + H, h + 2H, ... (slicing with a step)."""
# diagnosis: strided_heads
import numpy as np


def split_heads(x, n_heads):
    if x.shape[-1] % n_heads:
        raise ValueError("n_heads does not divide d")
    return np.stack([x[..., h::n_heads] for h in range(n_heads)], axis=-3)


def merge_heads(x):
    h, t, dh = x.shape[-3:]
    out = np.empty(x.shape[:-3] + (t, h * dh), dtype=x.dtype)
    for k in range(h):
        out[..., k::h] = x[..., k, :, :]
    return out
