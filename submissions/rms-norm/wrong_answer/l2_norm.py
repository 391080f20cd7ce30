"""Wrong answer: normalises by the L2 norm (a sum of squares, not a mean)."""
# diagnosis: sum_not_mean
import numpy as np


def rms_norm(x, weight, eps=1e-6):
    norm = np.sqrt(np.sum(x * x, axis=-1, keepdims=True) + eps)
    return (x / norm) * weight
