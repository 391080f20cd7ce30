"""Wrong answer: the hyperparameters taken from module-level constants, so the call's values are ignored."""
# diagnosis: hyperparameters_ignored
import numpy as np

LR, B1, B2, EPS = 1e-3, 0.9, 0.999, 1e-8


def adam_step(param, grad, m, v, t, lr=1e-3, beta1=0.9, beta2=0.999, eps=1e-8):
    m = B1 * m + (1 - B1) * grad
    v = B2 * v + (1 - B2) * grad * grad
    return param - LR * (m / (1 - B1 ** t)) / (np.sqrt(v / (1 - B2 ** t)) + EPS), m, v
