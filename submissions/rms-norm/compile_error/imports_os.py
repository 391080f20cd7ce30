"""Compile error: os is not among the allowed imports."""
import os

import numpy as np


def rms_norm(x, weight, eps=float(os.environ.get("EPS", "1e-6"))):
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * weight
