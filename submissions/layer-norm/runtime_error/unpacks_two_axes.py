"""Runtime error: assumes x is a (batch, features) matrix: a single vector cannot be unpacked into two."""
import numpy as np


def layer_norm(x, gamma, beta, eps=1e-5):
    n, d = x.shape
    mean = x.sum(axis=1).reshape(n, 1) / d
    var = ((x - mean) ** 2).sum(axis=1).reshape(n, 1) / d
    return (x - mean) / np.sqrt(var + eps) * gamma + beta
