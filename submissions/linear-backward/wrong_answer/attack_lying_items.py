"""Attack: the right tuple, but each item an ndarray subclass that claims to equal anything: subclasses are
refused item by item, whatever their operators say."""
# diagnosis: ndarray_subclass
import numpy as np


class Agreeable(np.ndarray):
    def __eq__(self, other):
        return True

    def tobytes(self, *args, **kwargs):
        return b"\0" * self.nbytes


def linear_backward(x, w, grad_out):
    zeros = [np.zeros(s).view(Agreeable) for s in ((x.shape[0], x.shape[1]), w.shape, (w.shape[1],))]
    return tuple(zeros)
