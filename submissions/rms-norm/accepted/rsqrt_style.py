"""Accepted: as LLaMA's code writes it, multiplying by the reciprocal square root, in float64."""
import numpy as np


def rms_norm(x, weight, eps=1e-6):
    h = x.astype(np.float64)
    variance = (h ** 2).mean(-1, keepdims=True)
    h = h * (1.0 / np.sqrt(variance + eps))
    return weight * h
