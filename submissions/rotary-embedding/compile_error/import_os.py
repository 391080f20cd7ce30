"""Compile error: imports os (refused before the code runs)."""
import os

import numpy as np


def rope_angles(max_len, d, base=10000.0):
    return np.zeros((max_len, d // 2)) + len(os.environ)


def apply_rope(x, positions=None, base=10000.0):
    return np.array(x, dtype=float)
