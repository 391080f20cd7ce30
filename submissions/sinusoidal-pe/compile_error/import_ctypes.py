"""Compile error (attack): imports ctypes, e.g. to poke memory or call libc directly."""
import ctypes

import numpy as np

_libc = ctypes.CDLL(None)


def sinusoidal_pe(max_len, d_model, base=10000.0):
    _libc.getpid()
    return np.zeros((max_len, d_model))


def add_positional_encoding(x, base=10000.0):
    return np.asarray(x)
