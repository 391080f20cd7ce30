"""Accepted: loops with the math module: the angle table column by column, the rotation pair by pair
(rows and batch axes stay vectorised, so the largest case still runs in time)."""
import math

import numpy as np


def rope_angles(max_len, d, base=10000.0):
    if d % 2 != 0:
        raise ValueError("d has to be even")
    table = np.zeros((max_len, d // 2))
    positions = np.arange(max_len, dtype=np.float64)
    for i in range(d // 2):
        table[:, i] = positions * math.pow(base, -(2 * i) / d)
    return table


def apply_rope(x, positions=None, base=10000.0):
    d = x.shape[-1]
    if d % 2 != 0:
        raise ValueError("d has to be even")
    t = x.shape[-2]
    pos = np.arange(t, dtype=np.float64) if positions is None else np.array(positions, dtype=np.float64)
    out = np.array(x, dtype=np.float64)
    for i in range(d // 2):
        w = math.pow(base, -(2 * i) / d)
        c, s = np.cos(pos * w), np.sin(pos * w)
        a = x[..., 2 * i].astype(np.float64)
        b = x[..., 2 * i + 1].astype(np.float64)
        out[..., 2 * i] = a * c - b * s
        out[..., 2 * i + 1] = a * s + b * c
    return out
