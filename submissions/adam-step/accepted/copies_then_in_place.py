"""Accepted: in-place updates, but on copies of the inputs, so the caller's arrays are untouched."""
import math

import numpy as np


def adam_step(param, grad, m, v, t, lr=1e-3, beta1=0.9, beta2=0.999, eps=1e-8):
    p, m2, v2 = np.array(param, dtype=np.float64), np.array(m, dtype=np.float64), np.array(v, dtype=np.float64)
    g = np.asarray(grad, dtype=np.float64)
    m2 *= beta1
    m2 += (1 - beta1) * g
    v2 *= beta2
    v2 += (1 - beta2) * g * g
    step = lr / (1 - beta1 ** t)
    p -= step * m2 / (np.sqrt(v2 / (1 - beta2 ** t)) + eps)
    return p, m2, v2
