"""Compile error: autograd is not among the allowed imports."""
import autograd.numpy as anp
from autograd import grad


def linear_backward(x, w, grad_out):
    loss = lambda x_, w_, b_: anp.sum((x_ @ w_ + b_) * grad_out)
    b = anp.zeros(w.shape[1])
    return grad(loss, 0)(x, w, b), grad(loss, 1)(x, w, b), grad(loss, 2)(x, w, b)
