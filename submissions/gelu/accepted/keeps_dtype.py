"""Accepted: constants cast to x's dtype, so float32 and float16 stay themselves."""
import numpy as np


def gelu(x):
    x = np.asarray(x)
    c = np.asarray(np.sqrt(2.0 / np.pi), dtype=x.dtype)
    a = np.asarray(0.044715, dtype=x.dtype)
    half = np.asarray(0.5, dtype=x.dtype)
    one = np.asarray(1.0, dtype=x.dtype)
    return half * x * (one + np.tanh(c * (x + a * x * x * x)))
