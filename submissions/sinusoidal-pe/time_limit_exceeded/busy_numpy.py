"""Time limit exceeded: endless heavy numpy work (np.sin/np.cos over a 2M-element
array, again and again) - the time is spent inside C code, not the interpreter."""
import numpy as np


def _grind():
    a = np.linspace(0.0, 1.0, 2_000_000)
    while True:
        a = np.sin(a) + np.cos(a)


def sinusoidal_pe(max_len, d_model, base=10000.0):
    _grind()
    return np.zeros((max_len, d_model))


def add_positional_encoding(x, base=10000.0):
    _grind()
    return np.asarray(x)
