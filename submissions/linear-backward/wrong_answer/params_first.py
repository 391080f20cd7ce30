"""Wrong answer: the parameters' gradients first, (grad_w, grad_x, grad_b)."""
# diagnosis: grads_out_of_order
import numpy as np


def linear_backward(x, w, grad_out):
    return x.T @ grad_out, grad_out @ w.T, grad_out.sum(0)
