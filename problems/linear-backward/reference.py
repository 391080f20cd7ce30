"""Reference solution for linear-backward, in float64.  Runs only in the judge's process."""

import numpy as np


def linear_backward(x, w, grad_out):
    x, w, grad_out = (np.asarray(a, dtype=np.float64) for a in (x, w, grad_out))
    grad_x = grad_out @ w.T      # dL/dx[n, i] = sum_o dL/dy[n, o] w[i, o]
    grad_w = x.T @ grad_out      # dL/dw[i, o] = sum_n x[n, i] dL/dy[n, o]
    grad_b = grad_out.sum(axis=0)  # dL/db[o] = sum_n dL/dy[n, o]
    return grad_x, grad_w, grad_b
