"""Wrong answer: "the loss is a mean", so dW and db are divided by N (they already come averaged in grad_out)."""
# diagnosis: batch_averaged
import numpy as np


def linear_backward(x, w, grad_out):
    m = x.shape[0]
    dW = 1 / m * np.dot(x.T, grad_out)
    db = 1 / m * np.sum(grad_out, axis=0)
    dx = np.dot(grad_out, w.T)
    return dx, dW, db
