"""Wrong answer: returns the bias-corrected moments as the new state."""
# diagnosis: corrected_moments_returned
import numpy as np


def adam_step(param, grad, m, v, t, lr=1e-3, beta1=0.9, beta2=0.999, eps=1e-8):
    m = (beta1 * m + (1 - beta1) * grad) / (1 - beta1 ** t)
    v = (beta2 * v + (1 - beta2) * grad ** 2) / (1 - beta2 ** t)
    return param - lr * m / (np.sqrt(v) + eps), m, v
