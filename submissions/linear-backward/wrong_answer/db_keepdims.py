"""Wrong answer: db summed with keepdims, a (1, n_out) row."""
# diagnosis: grad_b_keepdims
import numpy as np


def linear_backward(x, w, grad_out):
    return grad_out @ w.T, x.T @ grad_out, grad_out.sum(axis=0, keepdims=True)
