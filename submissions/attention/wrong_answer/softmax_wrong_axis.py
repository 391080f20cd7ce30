"""Wrong answer: the softmax over axis -2 (the queries) by a slip of the axis."""
# diagnosis: softmax_over_queries
import numpy as np


def scaled_dot_product_attention(q, k, v, mask=None):
    s = np.einsum("...qd,...kd->...qk", q, k) / np.sqrt(q.shape[-1])
    if mask is not None:
        s = np.where(mask, s, -np.inf)
    s = s - s.max(axis=-2, keepdims=True)
    e = np.exp(s)
    a = e / e.sum(axis=-2, keepdims=True)
    return np.einsum("...qk,...kc->...qc", a, v)
