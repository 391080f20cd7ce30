"""Wrong answer: the exact GELU with math.erf (what the paper defines, not the approximation asked for)."""
# diagnosis: exact_erf
import math

import numpy as np


def gelu(x):
    erf = np.vectorize(math.erf)
    return 0.5 * x * (1 + erf(x / math.sqrt(2)))
