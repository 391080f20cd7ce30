"""Wrong answer: loops over the rows of the last axis and never looks at `axis`."""
# diagnosis: axis_ignored
import numpy as np


def softmax(x, axis=-1):
    x = np.asarray(x, dtype=np.float64)
    flat = x.reshape(-1, x.shape[-1])
    result = np.zeros_like(flat)
    for i, row in enumerate(flat):
        e = np.exp(row - row.max())
        result[i] = e / e.sum()
    return result.reshape(x.shape)
