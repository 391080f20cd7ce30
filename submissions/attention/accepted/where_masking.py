"""Accepted: -inf where masked, the max taken over allowed keys, zero weights for blocked queries."""
import numpy as np


def scaled_dot_product_attention(q, k, v, mask=None):
    d_k = q.shape[-1]
    scores = np.matmul(q, np.swapaxes(k, -2, -1)) / np.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    m = np.max(scores, axis=-1, keepdims=True)
    m[~np.isfinite(m)] = 0.0            # blocked query: every score is -inf
    w = np.exp(scores - m)
    s = w.sum(axis=-1, keepdims=True)
    w = np.divide(w, s, out=np.zeros_like(w), where=s > 0)
    return w @ v
