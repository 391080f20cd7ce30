"""Compile error: rope_angles is not defined."""
import numpy as np


def apply_rope(x, positions=None, base=10000.0):
    return np.array(x, dtype=float)
