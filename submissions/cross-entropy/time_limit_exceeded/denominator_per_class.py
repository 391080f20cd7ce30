"""Time limit exceeded: every class's softmax recomputed from scratch in Python."""
import math

import numpy as np


def cross_entropy(logits, targets):
    rows = np.asarray(logits, dtype=np.float64).tolist()
    losses = []
    for row, t in zip(rows, np.asarray(targets).tolist()):
        m = max(row)
        probs = [math.exp(v - m) / sum(math.exp(w - m) for w in row) for v in row]
        losses.append(-math.log(probs[t]) if probs[t] > 0 else math.log(sum(math.exp(w - m) for w in row)) + m - row[t])
    return sum(losses) / len(losses)
