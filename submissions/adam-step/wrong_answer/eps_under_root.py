"""Wrong answer: eps under the square root (RMSprop-style)."""
# diagnosis: eps_inside_sqrt
import numpy as np


def adam_step(param, grad, m, v, t, lr=1e-3, beta1=0.9, beta2=0.999, eps=1e-8):
    new_m = beta1 * m + (1 - beta1) * grad
    new_v = beta2 * v + (1 - beta2) * np.square(grad)
    m_hat = new_m / (1 - np.power(beta1, t))
    v_hat = new_v / (1 - np.power(beta2, t))
    return param - lr * m_hat / np.sqrt(v_hat + eps), new_m, new_v
