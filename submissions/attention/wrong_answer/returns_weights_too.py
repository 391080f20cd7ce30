"""Wrong answer: returns (output, weights) as many libraries do; the exercise asks for the output alone."""
# diagnosis: not_ndarray
import numpy as np


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    top = np.max(scores, axis=-1, keepdims=True)
    top[np.isneginf(top)] = 0
    w = np.exp(scores - top)
    total = w.sum(axis=-1, keepdims=True)
    w = np.divide(w, total, out=np.zeros_like(w), where=total > 0)
    return w @ v, w
