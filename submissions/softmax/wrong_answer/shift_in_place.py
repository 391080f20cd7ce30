"""Wrong answer: shifts x in place to save memory (and fails outright on read-only x)."""
# diagnosis: input_mutated
import numpy as np


def softmax(x, axis=-1):
    x -= x.max(axis=axis, keepdims=True)
    out = np.exp(x)
    return out / out.sum(axis=axis, keepdims=True)
