"""Reference solution for rms-norm, in float64.  Runs only in the judge's process."""

import numpy as np


def rms_norm(x, weight, eps=1e-6):
    x = np.asarray(x, dtype=np.float64)
    mean_square = np.mean(x * x, axis=-1, keepdims=True)
    return x / np.sqrt(mean_square + eps) * np.asarray(weight, dtype=np.float64)
