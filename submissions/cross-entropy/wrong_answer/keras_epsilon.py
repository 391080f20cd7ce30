"""Wrong answer: clips the probabilities to [eps, 1 - eps] as Keras does, to avoid log(0)."""
# diagnosis: probability_clip
import numpy as np

EPSILON = 1e-7


def cross_entropy(logits, targets):
    shifted = logits - np.max(logits, axis=1, keepdims=True)
    p = np.exp(shifted)
    p /= p.sum(axis=1, keepdims=True)
    p = np.clip(p, EPSILON, 1.0 - EPSILON)
    return float(np.mean(-np.log(p[np.arange(p.shape[0]), targets])))
