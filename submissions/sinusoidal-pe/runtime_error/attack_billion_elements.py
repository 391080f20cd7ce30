"""Attack (runtime error): add_positional_encoding returns
np.broadcast_to(np.float64(0), (10**9,)), a read-only view with zero strides that claims
a billion elements (8 GB) while using 8 bytes, hoping the judge copies, compares or
serialises it and runs out of memory or time.  Before that it asks for
np.empty((8192, 1024 * 1024)), 64 GiB of address space, and keeps it if given (never
touched, so it costs nothing either way).  The harness sees nbytes larger than the slot
the judge sized for the case and reports only the shape: each add_positional_encoding
case is a wrong answer "returned an array of shape (1000000000,), expected (...)".
No known mistake explains such an output (no diagnosis), so, for a status that does not
hinge on one, sinusoidal_pe raises after building the same view: runtime error."""
# harm: huge_output
import numpy as np

_KEEP = []


def _huge():
    if not _KEEP:
        try:
            _KEEP.append(np.empty((8192, 1024 * 1024)))
            print("EMPTY-64GiB granted", flush=True)
        except MemoryError:
            _KEEP.append(None)
            print("EMPTY-64GiB refused", flush=True)
    return np.broadcast_to(np.float64(0), (10**9,))


def sinusoidal_pe(max_len, d_model, base=10000.0):
    view = _huge()
    raise RuntimeError("a view of %d elements, %d bytes claimed" % (view.size, view.nbytes))


def add_positional_encoding(x, base=10000.0):
    return _huge()
