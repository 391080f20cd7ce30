"""Wrong answer: the one-pass variance E[x^2] - E[x]^2, which cancels for large offsets."""
# diagnosis: one_pass_variance
import numpy as np


def layer_norm(x, gamma, beta, eps=1e-5):
    ex = x.mean(-1, keepdims=True)
    ex2 = (x ** 2).mean(-1, keepdims=True)
    var = ex2 - ex ** 2
    return (x - ex) * (var + eps) ** -0.5 * gamma + beta
