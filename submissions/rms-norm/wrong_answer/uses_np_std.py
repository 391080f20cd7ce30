"""Wrong answer: "the RMS is the standard deviation": np.std centres, x does not."""
# diagnosis: std_not_rms
import numpy as np


def rms_norm(x, weight, eps=1e-6):
    s = np.std(x, axis=-1, keepdims=True)
    return x / np.sqrt(s * s + eps) * weight
