"""Reference solution for cross-entropy, in float64.  Runs only in the judge's process."""

import numpy as np


def cross_entropy(logits, targets):
    logits = np.asarray(logits, dtype=np.float64)
    targets = np.asarray(targets)
    top = logits.max(axis=1, keepdims=True)
    log_sum_exp = top[:, 0] + np.log(np.exp(logits - top).sum(axis=1))
    picked = logits[np.arange(logits.shape[0]), targets]
    return float(np.mean(log_sum_exp - picked))
