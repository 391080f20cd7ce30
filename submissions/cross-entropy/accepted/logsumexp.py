"""Accepted: the log-sum-exp, one entry per row picked with fancy indexing."""
import numpy as np


def cross_entropy(logits, targets):
    m = logits.max(axis=1, keepdims=True)
    lse = m.squeeze(1) + np.log(np.sum(np.exp(logits - m), axis=1))
    n = logits.shape[0]
    return np.mean(lse - logits[np.arange(n), targets])
