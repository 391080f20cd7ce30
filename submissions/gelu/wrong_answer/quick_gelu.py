"""Wrong answer: CLIP's "QuickGELU", x * sigmoid(1.702 x)."""
# diagnosis: sigmoid_approximation
import numpy as np


def gelu(x):
    return x * (1 / (1 + np.exp(-1.702 * x)))
