"""Accepted: ported from a framework's "new GELU" line by line, with a tiny module-level helper."""
import math

import numpy as np


def new_gelu(x):
    return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * np.power(x, 3.0))))


def gelu(x):
    return new_gelu(np.array(x, dtype=np.float64, copy=True))
