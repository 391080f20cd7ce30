"""Wrong answer: forgets the 1/sqrt(dk) scale."""
# diagnosis: no_scale
import numpy as np


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = q @ k.swapaxes(-1, -2)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    top = np.max(scores, -1, keepdims=True)
    top = np.where(np.isinf(top), 0.0, top)
    w = np.exp(scores - top)
    denom = w.sum(-1, keepdims=True)
    w = np.divide(w, denom, out=np.zeros_like(w), where=denom != 0)
    return w @ v
