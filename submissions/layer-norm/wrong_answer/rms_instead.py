"""Wrong answer: divides by the root mean square without centring (RMSNorm, not layer norm): no name fits."""
# diagnosis: none
import numpy as np


def layer_norm(x, gamma, beta, eps=1e-5):
    rms = np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps)
    return x / rms * gamma + beta
