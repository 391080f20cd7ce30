"""Wrong answer: two mistakes at once (dW transposed and db a mean): no single name reproduces it."""
# diagnosis: none
import numpy as np


def linear_backward(x, w, grad_out):
    return grad_out @ w.T, (x.T @ grad_out).T, grad_out.mean(axis=0)
