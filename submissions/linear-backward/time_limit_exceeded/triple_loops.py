"""Time limit exceeded: every entry of every gradient as a Python sum."""
import numpy as np


def linear_backward(x, w, grad_out):
    X, W, G = x.tolist(), w.tolist(), grad_out.tolist()
    n, n_in, n_out = len(X), len(W), len(W[0])
    gx = [[sum(G[r][o] * W[i][o] for o in range(n_out)) for i in range(n_in)] for r in range(n)]
    gw = [[sum(X[r][i] * G[r][o] for r in range(n)) for o in range(n_out)] for i in range(n_in)]
    gb = [sum(G[r][o] for r in range(n)) for o in range(n_out)]
    return np.array(gx), np.array(gw), np.array(gb)
