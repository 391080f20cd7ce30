"""Wrong answer: centres x first, out of layer-norm habit."""
# diagnosis: mean_subtracted
import numpy as np


def rms_norm(x, weight, eps=1e-6):
    x = x - x.mean(axis=-1, keepdims=True)
    return weight * x / np.sqrt((x ** 2).mean(axis=-1, keepdims=True) + eps)
