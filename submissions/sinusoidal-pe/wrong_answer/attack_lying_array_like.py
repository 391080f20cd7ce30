"""Attack (wrong answer): returns an object that pretends to be the right array: its
`shape`, `dtype`, `ndim`, `size` and `nbytes` claim the expected float64 table, its
`__array__` hands over a table of 0.5, `__eq__` compares equal to anything and
`__bool__`/`all()` say yes, and `__class__` claims numpy.ndarray.  The harness accepts
only an exact numpy.ndarray (it checks type(), which __class__ cannot fool) and never
calls __array__ or __eq__: the result is "not a numpy.ndarray"."""
# harm: lying_array_like
# diagnosis: not_ndarray
import numpy as np


class _Liar:
    def __init__(self, shape):
        self.shape = tuple(shape)
        self.dtype = np.dtype(np.float64)
        self.ndim = len(self.shape)
        self.size = int(np.prod(self.shape))
        self.nbytes = self.size * 8
        self.flags = {"C_CONTIGUOUS": True}

    @property
    def __class__(self):
        return np.ndarray

    def __array__(self, dtype=None, copy=None):
        return np.full(self.shape, 0.5, dtype=dtype or np.float64)

    def __eq__(self, other):
        return np.ones(self.shape, dtype=bool)

    def __ne__(self, other):
        return np.zeros(self.shape, dtype=bool)

    def __bool__(self):
        return True

    def all(self, *args, **kwargs):
        return True

    def __len__(self):
        return self.shape[0] if self.shape else 0

    def __hash__(self):
        return 0


def sinusoidal_pe(max_len, d_model, base=10000.0):
    return _Liar((max_len, d_model))


def add_positional_encoding(x, base=10000.0):
    return _Liar(np.shape(x))
