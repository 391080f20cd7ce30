"""Reference solution for gelu, in float64.  Runs only in the judge's process."""

import math

import numpy as np


def gelu(x):
    x = np.asarray(x, dtype=np.float64)
    inner = math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)
    return 0.5 * x * (1.0 + np.tanh(inner))
