"""Memory limit exceeded (attack): grabs 600 MiB np.ones blocks, catches MemoryError
and keeps grabbing smaller blocks, holding everything - the OOM killer must end it."""
import numpy as np

_HOARD = []


def _hoard():
    size = 600 * 1024 * 1024 // 8  # float64 elements in 600 MiB
    while size >= 1024:
        try:
            _HOARD.append(np.ones(size))
        except MemoryError:
            size //= 2  # keep going with smaller blocks
    while True:  # never give up: keep touching small blocks
        try:
            _HOARD.append(np.ones(1024))
        except MemoryError:
            pass


def sinusoidal_pe(max_len, d_model, base=10000.0):
    _hoard()
    return np.zeros((max_len, d_model))


def add_positional_encoding(x, base=10000.0):
    _hoard()
    return np.asarray(x)
