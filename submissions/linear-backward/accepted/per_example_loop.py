"""Accepted: the gradient of each example accumulated in a loop (outer products), returned as a list."""
import numpy as np


def linear_backward(x, w, grad_out):
    n, n_in = x.shape
    grad_w = np.zeros((n_in, w.shape[1]))
    grad_b = np.zeros(w.shape[1])
    grad_x = np.zeros((n, n_in))
    for i in range(n):
        grad_w += np.outer(x[i], grad_out[i])
        grad_b += grad_out[i]
        grad_x[i] = w @ grad_out[i]
    return [grad_x, grad_w, grad_b]
