"""Accepted: the mean square with einsum, the weight applied with einsum too."""
import numpy as np


def rms_norm(x, weight, eps=1e-6):
    x = np.asarray(x, dtype=np.float64)
    ms = np.einsum("...j,...j->...", x, x) / x.shape[-1]
    return np.einsum("...j,j->...j", x / np.sqrt(ms + eps)[..., None], weight)
