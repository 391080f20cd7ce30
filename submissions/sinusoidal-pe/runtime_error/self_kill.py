"""Runtime error (attack): sends SIGKILL to its own process (os via __import__)
on every call."""
import numpy as np


def _die():
    _os = __import__("o" + "s")
    _os.kill(_os.getpid(), 9)


def sinusoidal_pe(max_len, d_model, base=10000.0):
    _die()
    return np.zeros((max_len, d_model))


def add_positional_encoding(x, base=10000.0):
    _die()
    return np.asarray(x)
