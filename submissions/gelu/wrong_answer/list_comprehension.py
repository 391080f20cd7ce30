"""Wrong answer: returns the Python list of a list comprehension."""
# diagnosis: not_ndarray
import math


def gelu(x):
    k = math.sqrt(2 / math.pi)
    flat = [0.5 * v * (1 + math.tanh(k * (v + 0.044715 * v ** 3))) for v in x.ravel().tolist()]
    return flat
