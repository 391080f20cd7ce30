"""Wrong answer: statistics over the batch axis, as batch norm computes them."""
# diagnosis: batch_axis
import numpy as np


def layer_norm(x, gamma, beta, eps=1e-5):
    mu = x.mean(axis=0)
    sigma2 = x.var(axis=0)
    return gamma * (x - mu) / np.sqrt(sigma2 + eps) + beta
