"""Accepted: a log_softmax helper and np.take_along_axis."""
import numpy as np


def log_softmax(z, axis=-1):
    z = z - np.max(z, axis=axis, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=axis, keepdims=True))


def cross_entropy(logits, targets):
    logp = log_softmax(np.asarray(logits, dtype=np.float64), axis=1)
    picked = np.take_along_axis(logp, np.asarray(targets)[:, None], axis=1)
    return float(-picked.mean())
