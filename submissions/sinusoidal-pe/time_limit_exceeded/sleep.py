"""Time limit exceeded (attack): sleeps for 1000 s in every call - uses no CPU, so
only a wall-clock limit catches it."""
import numpy as np

# time fetched at run time so the verdict never hinges on the static import allow-list
time = __import__("time")


def sinusoidal_pe(max_len, d_model, base=10000.0):
    time.sleep(1000)
    return np.zeros((max_len, d_model))


def add_positional_encoding(x, base=10000.0):
    time.sleep(1000)
    return np.asarray(x)
