"""Wrong answer: tanh written out with exponentials (NaN for large x)."""
# diagnosis: tanh_by_exp
import numpy as np


def my_tanh(z):
    return (np.exp(2 * z) - 1) / (np.exp(2 * z) + 1)


def gelu(x):
    return 0.5 * x * (1 + my_tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))
