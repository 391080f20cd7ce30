"""Wrong answer: forgets eps altogether (the constant row of the first example becomes NaN)."""
# diagnosis: eps_ignored
import numpy as np


def layer_norm(x, gamma, beta, eps=1e-5):
    centred = x - x.mean(axis=-1, keepdims=True)
    return centred / centred.std(axis=-1, keepdims=True) * gamma + beta
