"""Accepted: tutorial style, a Linear class whose backward caches nothing it does not need."""
from collections import namedtuple

import numpy as np

Grads = namedtuple("Grads", ["grad_x", "grad_w", "grad_b"])


class Linear:
    def __init__(self, w):
        self.w = np.asarray(w, dtype=np.float64)

    def backward(self, x, dy):
        dy = np.asarray(dy, dtype=np.float64)
        return Grads(dy.dot(self.w.T), np.asarray(x, dtype=np.float64).T.dot(dy), dy.sum(0))


def linear_backward(x, w, grad_out):
    return Linear(w).backward(x, grad_out)
