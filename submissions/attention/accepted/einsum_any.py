"""Accepted: einsum, a large negative fill, and the queries with no allowed key zeroed afterwards."""
import numpy as np


def scaled_dot_product_attention(q, k, v, mask=None):
    q = np.asarray(q, dtype=np.float64)
    scores = np.einsum("...id,...jd->...ij", q, k) / np.sqrt(q.shape[-1])
    if mask is None:
        mask = np.ones(scores.shape, dtype=bool)
    mask = np.broadcast_to(mask, scores.shape)
    scores = np.where(mask, scores, -1e30)
    scores = scores - scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores) * mask
    weights /= np.maximum(weights.sum(axis=-1, keepdims=True), 1e-300)
    out = np.einsum("...ij,...jc->...ic", weights, v)
    return np.where(mask.any(axis=-1)[..., None], out, 0.0)
