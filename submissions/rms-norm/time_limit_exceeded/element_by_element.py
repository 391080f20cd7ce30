"""Time limit exceeded: the mean square recomputed in pure Python for every element."""
import math

import numpy as np


def rms_norm(x, weight, eps=1e-6):
    x = np.asarray(x, dtype=np.float64)
    d = x.shape[-1]
    rows = x.reshape(-1, d).tolist()
    w = list(weight)
    out = [[row[j] / math.sqrt(sum(v * v for v in row) / d + eps) * w[j] for j in range(d)] for row in rows]
    return np.array(out).reshape(x.shape)
