"""Known mistakes for linear-backward, as small wrong implementations (each with linear_backward's signature)."""

import numpy as np


def _float(a):
    a = np.asarray(a)
    return a if a.dtype.kind == "f" else a.astype(np.float64)


def _grads(x, w, g, **change):
    x, w, g = _float(x), _float(w), _float(g)
    grad_x, grad_w, grad_b = g @ w.T, x.T @ g, g.sum(axis=0)
    if change.get("grad_w") == "transposed":
        grad_w = g.T @ x
    if change.get("grad_w") == "mean":
        grad_w = grad_w / x.shape[0]
    if change.get("grad_x") == "no_transpose":
        grad_x = g @ w  # (N, n_out) @ (n_in, n_out): only square w lines up
    if change.get("grad_b") == "mean":
        grad_b = g.mean(axis=0)
    if change.get("grad_b") == "keepdims":
        grad_b = g.sum(axis=0, keepdims=True)
    if change.get("grad_b") == "not_summed":
        grad_b = g.copy()
    if change.get("grad_b") == "wrong_axis":
        grad_b = g.sum(axis=1)
    if change.get("order") == "w_x_b":
        return grad_w, grad_x, grad_b
    return grad_x, grad_w, grad_b


def grad_w_transposed(x, w, grad_out):
    return _grads(x, w, grad_out, grad_w="transposed")


def grad_w_averaged(x, w, grad_out):
    return _grads(x, w, grad_out, grad_w="mean")


def grad_x_not_transposed(x, w, grad_out):
    return _grads(x, w, grad_out, grad_x="no_transpose")


def grad_b_mean(x, w, grad_out):
    return _grads(x, w, grad_out, grad_b="mean")


def grad_b_keepdims(x, w, grad_out):
    return _grads(x, w, grad_out, grad_b="keepdims")


def grad_b_not_summed(x, w, grad_out):
    return _grads(x, w, grad_out, grad_b="not_summed")


def grad_b_wrong_axis(x, w, grad_out):
    return _grads(x, w, grad_out, grad_b="wrong_axis")


def grads_out_of_order(x, w, grad_out):
    return _grads(x, w, grad_out, order="w_x_b")


def batch_averaged(x, w, grad_out):
    """grad_w and grad_b both divided by the batch size (as if the loss were averaged inside the layer)."""
    gx, gw, gb = _grads(x, w, grad_out)
    n = np.shape(x)[0]
    return gx, gw / n, gb / n
