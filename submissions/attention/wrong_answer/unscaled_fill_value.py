"""Wrong answer: two slips at once, no 1/sqrt(dk) scale and a -1e9 fill: no one name reproduces every failing
case, so none is given as the explanation (each is shown as partly explaining)."""
# diagnosis: none
import numpy as np


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = np.einsum("...id,...jd->...ij", q, k)
    if mask is not None:
        scores = np.where(mask, scores, -1e9)
    scores -= scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores)
    weights /= weights.sum(axis=-1, keepdims=True)
    return np.einsum("...ij,...jc->...ic", weights, v)
