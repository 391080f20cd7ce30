"""Wrong answer: sums the per-example losses."""
# diagnosis: sum_not_mean
import numpy as np


def cross_entropy(logits, targets):
    m = logits.max(axis=1)
    lse = m + np.log(np.exp(logits - m[:, None]).sum(axis=1))
    return np.sum(lse - logits[np.arange(len(targets)), targets])
