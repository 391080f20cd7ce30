"""Wrong answer: builds the result in x's own memory to save an allocation (read-only x crashes)."""
# diagnosis: input_mutated
import numpy as np


def gelu(x):
    inner = np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3))
    x *= 0.5 * (1 + inner)
    return x
