"""Wrong answer: eps added to the standard deviation, outside the root."""
# diagnosis: eps_outside_sqrt
import numpy as np


def layer_norm(x, gamma, beta, eps=1e-5):
    mean = np.mean(x, -1, keepdims=True)
    std = np.std(x, -1, keepdims=True)
    return (x - mean) / (std + eps) * gamma + beta
