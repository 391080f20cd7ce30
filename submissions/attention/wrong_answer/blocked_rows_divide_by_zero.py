"""Wrong answer: correct -inf masking, but a query with no allowed key becomes 0 / 0 = NaN."""
# diagnosis: blocked_rows_nan
import numpy as np


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if mask is not None:
        scores[..., :, :] = np.where(mask, scores, float("-inf"))
    scores = scores - np.max(scores, axis=-1, keepdims=True)
    p = np.exp(scores)
    p = p / np.sum(p, axis=-1, keepdims=True)
    return p @ v
