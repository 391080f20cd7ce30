"""Wrong answer: softmax first, then multiply the weights by the mask (no renormalising)."""
# diagnosis: mask_after_softmax
import numpy as np


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    scores = scores - scores.max(axis=-1, keepdims=True)
    attn = np.exp(scores)
    attn /= attn.sum(axis=-1, keepdims=True)
    if mask is not None:
        attn = attn * mask
    return attn @ v
