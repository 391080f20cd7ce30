"""Wrong answer: the formula exactly as written, no shift: overflows for large scores."""
# diagnosis: no_max_subtraction
import numpy as np


def softmax(x, axis=-1):
    exps = np.exp(x)
    return exps / np.sum(exps, axis=axis, keepdims=True)
