"""Time limit exceeded: pure Python, and the denominator is summed again for every entry."""
import math

import numpy as np


def softmax(x, axis=-1):
    moved = np.moveaxis(np.asarray(x, dtype=np.float64), axis, -1)
    rows = moved.reshape(-1, moved.shape[-1]).tolist()
    out = []
    for row in rows:
        top = max(row)
        new_row = []
        for v in row:
            denominator = 0.0
            for w in row:
                denominator += math.exp(w - top)
            new_row.append(math.exp(v - top) / denominator)
        out.append(new_row)
    return np.moveaxis(np.array(out).reshape(moved.shape), -1, axis)
