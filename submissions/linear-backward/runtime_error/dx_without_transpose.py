"""Runtime error: dx = grad_out @ w: the shapes only line up for a square w (and the values are still wrong
there, which is named)."""
# diagnosis: grad_x_not_transposed
import numpy as np


def linear_backward(x, w, grad_out):
    return grad_out @ w, x.T @ grad_out, grad_out.sum(axis=0)
