"""Accepted: through np.std, squared back before adding eps (eps stays inside the root)."""
import numpy as np


def layer_norm(x, gamma, beta, eps=1e-5):
    x = x.astype(np.float64)
    std = x.std(axis=-1, keepdims=True)
    x_hat = (x - x.mean(axis=-1, keepdims=True)) / np.sqrt(std ** 2 + eps)
    return gamma * x_hat + beta
