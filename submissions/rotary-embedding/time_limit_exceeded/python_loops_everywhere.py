"""Time limit exceeded: every element rotated in a Python loop with numpy scalar arithmetic (np.cos on one
angle at a time, the frequency table recomputed for every element): the 4M-element case takes far longer
than a call may."""
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
                th = pos[r] * (base ** (-np.arange(0, d, 2) / d))[i]  # the frequency table, recomputed per element
                a, c = float(flat[b, r, 2 * i]), float(flat[b, r, 2 * i + 1])
                out[b, r, 2 * i] = a * np.cos(th) - c * np.sin(th)
                out[b, r, 2 * i + 1] = a * np.sin(th) + c * np.cos(th)
    return out.reshape(x.shape)
