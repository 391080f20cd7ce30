"""Wrong answer: returns grad_out as the bias gradient, one row per example."""
# diagnosis: grad_b_not_summed
import numpy as np


def linear_backward(x, w, grad_out):
    return np.dot(grad_out, w.T), np.dot(x.T, grad_out), grad_out
