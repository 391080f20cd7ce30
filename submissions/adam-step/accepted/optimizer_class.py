"""Accepted: tutorial style, an Adam class with its hyperparameters, used for one step on copies of the state."""
import numpy as np


class Adam:
    def __init__(self, lr=1e-3, beta1=0.9, beta2=0.999, eps=1e-8):
        self.lr, self.beta1, self.beta2, self.eps = lr, beta1, beta2, eps

    def step(self, param, grad, m, v, t):
        m = self.beta1 * m + (1.0 - self.beta1) * grad
        v = self.beta2 * v + (1.0 - self.beta2) * np.square(grad)
        bias1 = 1.0 - self.beta1 ** t
        bias2 = 1.0 - self.beta2 ** t
        update = (m / bias1) / (np.sqrt(v / bias2) + self.eps)
        return param - self.lr * update, m, v


def adam_step(param, grad, m, v, t, lr=1e-3, beta1=0.9, beta2=0.999, eps=1e-8):
    return Adam(lr, beta1, beta2, eps).step(np.array(param, dtype=float), grad, m, v, t)
