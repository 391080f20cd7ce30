"""Compile error: scipy is not among the allowed imports."""
import numpy as np
from scipy.special import softmax


def scaled_dot_product_attention(q, k, v, mask=None):
    s = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    return softmax(np.where(mask, s, -np.inf) if mask is not None else s, axis=-1) @ v
