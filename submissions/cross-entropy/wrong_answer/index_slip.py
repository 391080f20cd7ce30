"""Wrong answer: logp[:, targets] where logp[np.arange(N), targets] was meant."""
# diagnosis: all_pairs
import numpy as np


def cross_entropy(logits, targets):
    m = logits.max(axis=1, keepdims=True)
    logp = logits - m - np.log(np.exp(logits - m).sum(axis=1, keepdims=True))
    return -logp[:, targets].mean()
