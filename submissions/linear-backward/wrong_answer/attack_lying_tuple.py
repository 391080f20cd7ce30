"""Attack: a tuple subclass whose len() and indexing claim three right gradients while it holds two: the harness
reads it with tuple's own methods, so what it really holds is judged (a wrong answer, named as such)."""
# diagnosis: not_ndarray
import numpy as np


class Three(tuple):
    def __len__(self):
        return 3

    def __getitem__(self, k):
        return self._right[k]

    def __iter__(self):
        return iter(self._right)


def linear_backward(x, w, grad_out):
    t = Three((np.zeros(1), np.zeros(1)))
    t._right = (grad_out @ w.T, x.T @ grad_out, grad_out.sum(axis=0))
    return t
