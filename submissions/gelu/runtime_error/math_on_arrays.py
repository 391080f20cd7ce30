"""Runtime error: math.tanh on an array (it takes one number)."""
import math


def gelu(x):
    return 0.5 * x * (1 + math.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))
