"""Accepted: the moments with einsum."""
import numpy as np


def layer_norm(x, gamma, beta, eps=1e-5):
    x = np.asarray(x, dtype=np.float64)
    d = x.shape[-1]
    mean = np.einsum("...j->...", x)[..., None] / d
    xc = x - mean
    var = np.einsum("...j,...j->...", xc, xc)[..., None] / d
    return np.einsum("...j,j->...j", xc / np.sqrt(var + eps), gamma) + beta
