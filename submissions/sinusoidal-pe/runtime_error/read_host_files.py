"""Runtime error (attack): tries to read the judge's reference solution and /etc/passwd
from the host; the files must not be visible, so open() raises FileNotFoundError."""
import numpy as np

_TARGETS = ["/work/main/problems/sinusoidal-pe/reference.py", "/etc/passwd"]


def _snoop():
    leaked = []
    for path in _TARGETS:
        with open(path) as fh:  # errors propagate on purpose
            leaked.append(fh.read())
    # even if everything was readable, never fall back to a correct answer
    raise RuntimeError("host files were readable: %d bytes leaked" % sum(map(len, leaked)))


def sinusoidal_pe(max_len, d_model, base=10000.0):
    _snoop()
    return np.zeros((max_len, d_model))


def add_positional_encoding(x, base=10000.0):
    _snoop()
    return np.asarray(x)
