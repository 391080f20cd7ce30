"""Wrong answer: returns log-softmax (the log-probabilities) instead of the probabilities."""
# diagnosis: none
import numpy as np


def softmax(x, axis=-1):
    m = x.max(axis=axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=axis, keepdims=True))
