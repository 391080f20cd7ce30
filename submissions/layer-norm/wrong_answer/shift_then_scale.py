"""Wrong answer: applies beta as the scale and gamma as the shift (the names mixed up in a helper)."""
# diagnosis: gamma_beta_swapped
import numpy as np


def affine(v, shift, scale):
    return v * scale + shift


def layer_norm(x, gamma, beta, eps=1e-5):
    z = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + eps)
    return affine(z, gamma, beta)
