"""Wrong answer: the annotated-transformer way, scores.masked_fill(mask == 0, -1e9), in numpy: a query with no
allowed key gets uniform weights instead of zeros."""
# diagnosis: large_negative_mask
import math

import numpy as np


def softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def scaled_dot_product_attention(q, k, v, mask=None):
    d_k = q.shape[-1]
    scores = q @ np.swapaxes(k, -2, -1) / math.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask == 0, -1e9, scores)
    p_attn = softmax(scores)
    return p_attn @ v
