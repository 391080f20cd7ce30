"""Runtime error: treats targets as one-hot rows (y * log p), but they are class indices of shape (N,)."""
import numpy as np


def cross_entropy(logits, targets):
    z = logits - logits.max(axis=1, keepdims=True)
    log_p = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    return -np.mean(np.sum(targets * log_p, axis=1))
