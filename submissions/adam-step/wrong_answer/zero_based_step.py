"""Wrong answer: a loop counter from 0 used as the step (1 - beta**0 = 0 on the first step: inf and NaN)."""
# diagnosis: t_from_zero
import numpy as np


def adam_step(param, grad, m, v, t, lr=1e-3, beta1=0.9, beta2=0.999, eps=1e-8):
    step = t - 1  # "iteration index"
    m_new = beta1 * m + (1 - beta1) * grad
    v_new = beta2 * v + (1 - beta2) * grad ** 2
    mh = m_new / (1 - beta1 ** step)
    vh = v_new / (1 - beta2 ** step)
    return param - lr * mh / (np.sqrt(vh) + eps), m_new, v_new
