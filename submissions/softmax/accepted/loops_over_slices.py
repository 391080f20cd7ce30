"""Accepted: move the axis to the end, then one slice at a time with the math module."""
import math

import numpy as np


def softmax(x, axis=-1):
    moved = np.moveaxis(np.asarray(x, dtype=np.float64), axis, -1)
    rows = moved.reshape(-1, moved.shape[-1])
    out = np.empty_like(rows)
    for r in range(rows.shape[0]):
        row = rows[r]
        biggest = max(row)
        exps = [math.exp(v - biggest) for v in row]
        total = math.fsum(exps)
        out[r] = [v / total for v in exps]
    return np.moveaxis(out.reshape(moved.shape), -1, axis)
