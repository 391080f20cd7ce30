"""Wrong answer: SGD with momentum instead of Adam (v passed through): no name fits."""
# diagnosis: none
import numpy as np


def adam_step(param, grad, m, v, t, lr=1e-3, beta1=0.9, beta2=0.999, eps=1e-8):
    m = beta1 * m + grad
    return param - lr * m, m, np.array(v, dtype=float)
