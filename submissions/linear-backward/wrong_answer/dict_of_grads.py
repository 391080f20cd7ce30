"""Wrong answer: a dict of gradients instead of the tuple."""
# diagnosis: not_ndarray
import numpy as np


def linear_backward(x, w, grad_out):
    return {"x": grad_out @ w.T, "w": x.T @ grad_out, "b": grad_out.sum(axis=0)}
