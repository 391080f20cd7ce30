"""Accepted: the three formulas with @."""
import numpy as np


def linear_backward(x, w, grad_out):
    grad_x = grad_out @ w.T
    grad_w = x.T @ grad_out
    grad_b = grad_out.sum(axis=0)
    return grad_x, grad_w, grad_b
