"""Wrong answer: the loss in bits (log base 2) instead of nats: a mistake the bank has no name for, so none is
given."""
# diagnosis: none
import numpy as np


def cross_entropy(logits, targets):
    m = logits.max(axis=1, keepdims=True)
    log2_z = (m[:, 0] + np.log(np.exp(logits - m).sum(axis=1))) / np.log(2)
    picked = logits[np.arange(len(targets)), targets] / np.log(2)
    return float(np.mean(log2_z - picked))
