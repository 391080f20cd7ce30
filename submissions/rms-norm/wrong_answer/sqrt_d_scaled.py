"""Wrong answer: the L2 norm over d instead of sqrt(d), i.e. the mean of squares not rooted after dividing:
no name fits."""
# diagnosis: none
import numpy as np


def rms_norm(x, weight, eps=1e-6):
    l2 = np.sqrt(np.sum(x ** 2, axis=-1, keepdims=True))
    return x / (l2 / x.shape[-1] + eps) * weight
