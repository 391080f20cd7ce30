"""Time limit exceeded: recomputes the bias corrections by multiplying betas t times, for every element."""
import math

import numpy as np


def adam_step(param, grad, m, v, t, lr=1e-3, beta1=0.9, beta2=0.999, eps=1e-8):
    shape = np.shape(param)
    P, G, M, V = (np.asarray(a, dtype=np.float64).ravel().tolist() for a in (param, grad, m, v))
    out = ([], [], [])
    for p, g, mm, vv in zip(P, G, M, V):
        b1t = b2t = 1.0
        for _ in range(t):
            b1t *= beta1
            b2t *= beta2
        mm = beta1 * mm + (1 - beta1) * g
        vv = beta2 * vv + (1 - beta2) * g * g
        out[0].append(p - lr * (mm / (1 - b1t)) / (math.sqrt(vv / (1 - b2t)) + eps))
        out[1].append(mm)
        out[2].append(vv)
    return tuple(np.array(a).reshape(shape) for a in out)
