"""Wrong answer: x**2 in the cubic term (no name in the bank fits: x**2 is neither x nor x**3)."""
# diagnosis: none
import numpy as np


def gelu(x):
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 2)))
