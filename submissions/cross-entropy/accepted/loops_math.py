"""Accepted: a loop over the examples with the math module."""
import math

import numpy as np


def cross_entropy(logits, targets):
    total = 0.0
    rows = np.asarray(logits, dtype=np.float64).tolist()
    for row, t in zip(rows, np.asarray(targets).tolist()):
        m = max(row)
        lse = m + math.log(math.fsum(math.exp(v - m) for v in row))
        total += lse - row[t]
    return total / len(rows)
