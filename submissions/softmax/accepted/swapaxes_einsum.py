"""Accepted: swap the axis to the end and sum with einsum."""
import numpy as np


def softmax(x, axis=-1):
    t = np.swapaxes(np.asarray(x, dtype=np.float64), axis, -1)
    t = t - t.max(axis=-1)[..., None]
    e = np.exp(t)
    total = np.einsum("...j->...", e)
    return np.swapaxes(e / total[..., None], -1, axis)
