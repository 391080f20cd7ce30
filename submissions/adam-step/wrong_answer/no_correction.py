"""Wrong answer: skips the bias correction ("it only matters for the first steps")."""
# diagnosis: no_bias_correction
import numpy as np


def adam_step(param, grad, m, v, t, lr=1e-3, beta1=0.9, beta2=0.999, eps=1e-8):
    m = beta1 * m + (1 - beta1) * grad
    v = beta2 * v + (1 - beta2) * grad * grad
    return param - lr * m / (np.sqrt(v) + eps), m, v
