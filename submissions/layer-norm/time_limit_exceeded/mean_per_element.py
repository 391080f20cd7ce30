"""Time limit exceeded: the row's mean and variance recomputed in Python for every single element."""
import math

import numpy as np


def layer_norm(x, gamma, beta, eps=1e-5):
    x = np.asarray(x, dtype=np.float64)
    d = x.shape[-1]
    flat = x.reshape(-1, d).tolist()
    out = []
    for row in flat:
        new = []
        for j in range(d):
            m = sum(row) / d
            v = sum((a - m) ** 2 for a in row) / d
            new.append((row[j] - m) / math.sqrt(v + eps))
        out.append(new)
    return np.array(out).reshape(x.shape) * gamma + beta
