"""Accepted: tutorial style, a small LayerNorm class like a framework's module, used by the function."""
import numpy as np


class LayerNorm:
    def __init__(self, gamma, beta, eps=1e-5):
        self.gamma = np.asarray(gamma)
        self.beta = np.asarray(beta)
        self.eps = eps

    def normalize(self, x):
        mean = x.mean(axis=-1, keepdims=True)
        std = np.sqrt(((x - mean) ** 2).mean(axis=-1, keepdims=True) + self.eps)
        return (x - mean) / std

    def __call__(self, x):
        return self.normalize(x) * self.gamma + self.beta


def layer_norm(x, gamma, beta, eps=1e-5):
    return LayerNorm(gamma, beta, eps)(np.asarray(x))
