"""Accepted: one-hot targets from np.eye, as in a tutorial's y_true * log(y_pred) form (but in log space)."""
import numpy as np


def cross_entropy(logits, targets):
    n, c = logits.shape
    one_hot = np.eye(c)[targets]                    # (N, C)
    shifted = logits - logits.max(axis=1, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    return -np.sum(one_hot * log_probs) / n
