"""Wrong answer: the 1-D version used for every shape: one sum over everything, no max shift."""
# diagnosis: none
import numpy as np


def softmax(x, axis=-1):
    return np.exp(x) / np.sum(np.exp(x))
