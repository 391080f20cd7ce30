"""Memory limit exceeded: allocates and touches 4 GiB in 64 MiB np.ones chunks kept
in a list (np.ones writes every page, so the memory is really resident)."""
import numpy as np


def _hog():
    keep = []
    for _ in range(64):  # 64 x 64 MiB = 4 GiB
        keep.append(np.ones(8 * 1024 * 1024, dtype=np.float64))
    return keep


def sinusoidal_pe(max_len, d_model, base=10000.0):
    keep = _hog()
    return np.zeros((max_len, d_model)) + 0 * len(keep)


def add_positional_encoding(x, base=10000.0):
    keep = _hog()
    return np.asarray(x) + 0 * len(keep)
