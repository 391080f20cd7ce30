"""Accepted: np.tensordot and np.add.reduce, in the inputs' dtype."""
import numpy as np


def linear_backward(x, w, grad_out):
    return (np.tensordot(grad_out, w, axes=([1], [1])),
            np.tensordot(x, grad_out, axes=([0], [0])),
            np.add.reduce(grad_out, axis=0))
