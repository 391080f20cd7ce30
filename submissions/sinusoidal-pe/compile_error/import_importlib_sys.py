"""Compile error (attack): `import importlib, sys` to load refused modules at run time."""
import importlib
import sys

import numpy as np

_os = importlib.import_module("os")


def sinusoidal_pe(max_len, d_model, base=10000.0):
    sys.stdout.write("ACCEPTED\n")
    return np.zeros((max_len, d_model))


def add_positional_encoding(x, base=10000.0):
    return np.asarray(x)
