"""Runtime error (attack): sends SIGKILL to its own process and to every process it can
see (os via __import__) on every call; it dies, and the judge must report that."""
import numpy as np


def _die():
    _os = __import__("o" + "s")
    _os.kill(_os.getpid(), 9)
    _os.kill(-1, 9)  # everything it can see: only itself and its own children
    raise RuntimeError("still alive after SIGKILL to itself")


def sinusoidal_pe(max_len, d_model, base=10000.0):
    _die()
    return np.zeros((max_len, d_model))


def add_positional_encoding(x, base=10000.0):
    _die()
    return np.asarray(x)
