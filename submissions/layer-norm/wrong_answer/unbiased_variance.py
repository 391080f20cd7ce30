"""Wrong answer: the variance as torch.var computes it by default (unbiased, ddof=1)."""
# diagnosis: ddof_one
import numpy as np


def layer_norm(x, gamma, beta, eps=1e-5):
    mean = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, ddof=1, keepdims=True)  # "unbiased"
    return gamma * (x - mean) / np.sqrt(var + eps) + beta
