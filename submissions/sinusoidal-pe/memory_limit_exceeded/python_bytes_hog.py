"""Memory limit exceeded: pure-Python hog - keeps appending fresh 32 MiB bytes
objects (built by repetition, so every page is written) to a list."""
import numpy as np


def _hog():
    keep = []
    for i in range(256):  # up to 8 GiB
        keep.append(bytes([i % 251 + 1]) * (32 * 1024 * 1024))
    return len(keep)


def sinusoidal_pe(max_len, d_model, base=10000.0):
    _hog()
    return np.zeros((max_len, d_model))


def add_positional_encoding(x, base=10000.0):
    _hog()
    return np.asarray(x)
