"""Wrong answer: a helper that adds eps after the square root."""
# diagnosis: eps_outside_sqrt
import numpy as np


def root_mean_square(v):
    return np.sqrt(np.mean(v ** 2, axis=-1, keepdims=True))


def rms_norm(x, weight, eps=1e-6):
    return x / (root_mean_square(x) + eps) * weight
