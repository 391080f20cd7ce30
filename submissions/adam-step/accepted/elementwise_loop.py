"""Accepted: one element at a time with math, over flat copies, reshaped back."""
import math

import numpy as np


def adam_step(param, grad, m, v, t, lr=1e-3, beta1=0.9, beta2=0.999, eps=1e-8):
    shape = np.shape(param)
    P, G, M, V = (np.asarray(a, dtype=np.float64).ravel().tolist() for a in (param, grad, m, v))
    c1, c2 = 1 - beta1 ** t, 1 - beta2 ** t
    out_p, out_m, out_v = [], [], []
    for p, g, mm, vv in zip(P, G, M, V):
        mm = beta1 * mm + (1 - beta1) * g
        vv = beta2 * vv + (1 - beta2) * g * g
        out_p.append(p - lr * (mm / c1) / (math.sqrt(vv / c2) + eps))
        out_m.append(mm)
        out_v.append(vv)
    return tuple(np.array(a).reshape(shape) for a in (out_p, out_m, out_v))
