"""Wrong answer: a well-known forum answer: the max of the whole array and a sum down axis 0.
Right for a single vector; neither name alone reproduces every failing case, so none is given."""
# diagnosis: none
import numpy as np


def softmax(x, axis=-1):
    """Compute softmax values for each sets of scores in x."""
    e_x = np.exp(x - np.max(x))
    return e_x / e_x.sum(axis=0)
