"""Wrong answer: dW as grad_out.T @ x (the PyTorch weight layout, (out, in), not this exercise's)."""
# diagnosis: grad_w_transposed
import numpy as np


def linear_backward(x, w, grad_out):
    dx = grad_out @ w.T
    dw = grad_out.T @ x
    db = np.sum(grad_out, axis=0)
    return dx, dw, db
