"""Time limit exceeded: every element rotated in pure Python (the 4M-element case takes minutes)."""
import math

import numpy as np


def rope_angles(max_len, d, base=10000.0):
    if d % 2:
        raise ValueError("d must be even")
    return np.array([[p * base ** (-2 * i / d) for i in range(d // 2)] for p in range(max_len)], dtype=float).reshape(max_len, d // 2)


def apply_rope(x, positions=None, base=10000.0):
    d = x.shape[-1]
    if d % 2:
        raise ValueError("d must be even")
    t = x.shape[-2]
    pos = list(range(t)) if positions is None else [int(p) for p in positions]
    flat = np.array(x, dtype=float).reshape(-1, t, d)
    out = np.empty_like(flat)
    for b in range(flat.shape[0]):
        for r in range(t):
            for i in range(d // 2):
                th = pos[r] * base ** (-2 * i / d)
                a, c = float(flat[b, r, 2 * i]), float(flat[b, r, 2 * i + 1])
                out[b, r, 2 * i] = a * math.cos(th) - c * math.sin(th)
                out[b, r, 2 * i + 1] = a * math.sin(th) + c * math.cos(th)
    return out.reshape(x.shape)
