"""Wrong answer: a stable softmax, then np.log of the picked probabilities (log(0) once one underflows)."""
# diagnosis: log_of_softmax
import numpy as np


def cross_entropy(logits, targets):
    z = logits - logits.max(axis=1, keepdims=True)
    probs = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    correct = probs[range(logits.shape[0]), targets]
    return np.mean(-np.log(correct))
