"""Wrong answer: returns the mean log-likelihood (the minus sign forgotten)."""
# diagnosis: sign_flipped
import numpy as np


def cross_entropy(logits, targets):
    top = logits.max(-1, keepdims=True)
    logp = (logits - top) - np.log(np.exp(logits - top).sum(-1, keepdims=True))
    return np.take_along_axis(logp, targets[:, None], -1).mean()
