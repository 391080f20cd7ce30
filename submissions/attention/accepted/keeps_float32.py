"""Accepted: computes in the inputs' dtype (float32 in, float32 out) with a helper for the masked softmax."""
import numpy as np


def masked_softmax(scores, allowed):
    neg = np.array(-np.inf, dtype=scores.dtype)
    scores = np.where(allowed, scores, neg)
    top = scores.max(-1, keepdims=True)
    top = np.where(np.isneginf(top), 0, top).astype(scores.dtype)
    e = np.exp(scores - top)
    total = e.sum(-1, keepdims=True)
    return np.where(total > 0, e / np.where(total > 0, total, 1), 0).astype(scores.dtype)


def scaled_dot_product_attention(q, k, v, mask=None):
    dtype = np.result_type(q, k, v)
    scores = (q @ np.swapaxes(k, -1, -2)) / np.sqrt(np.array(q.shape[-1], dtype=dtype))
    allowed = True if mask is None else mask
    return masked_softmax(scores.astype(dtype), allowed) @ v
