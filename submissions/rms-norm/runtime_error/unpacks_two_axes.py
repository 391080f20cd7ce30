"""Runtime error: written for (batch, d) only: a vector has no second axis to unpack."""
import numpy as np


def rms_norm(x, weight, eps=1e-6):
    b, d = x.shape
    out = np.zeros((b, d))
    for i in range(b):
        out[i] = x[i] / np.sqrt(np.mean(x[i] ** 2) + eps) * weight
    return out
