"""Wrong answer: no eps at all (a zero row of the first example becomes NaN)."""
# diagnosis: eps_ignored
import numpy as np


def rms_norm(x, weight, eps=1e-6):
    rms = np.sqrt((x * x).mean(axis=-1))[..., np.newaxis]
    return weight * (x / rms)
