"""Compile error (attack): `from subprocess import run` to shell out to the host."""
from subprocess import run

import numpy as np


def sinusoidal_pe(max_len, d_model, base=10000.0):
    run(["cat", "/etc/passwd"])
    return np.zeros((max_len, d_model))


def add_positional_encoding(x, base=10000.0):
    run(["id"])
    return np.asarray(x)
