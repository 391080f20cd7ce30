"""Attack (wrong answer): prints about 2 GB to stdout (and a little to stderr) in 1 MiB
chunks, catching the OSError each refused write raises, hoping to fill the judge's
memory or disk or to push its verdict out of the captured output; then returns a table
of zeros.  RLIMIT_FSIZE caps the capture files at the bundle's output limit (1 MiB):
every write past it fails with EFBIG at once, the judge keeps the first 16 KiB, and the
verdict is the wrong answer the zeros deserve."""
# harm: flood_output
# diagnosis: constant_output
import numpy as np

_sys = __import__("s" + "ys")
_CHUNK = "x" * ((1 << 20) - 1)
_STATE = {}


def _flood():
    if _STATE:
        return
    refused = 0
    for _ in range(2048):  # 2048 x 1 MiB = 2 GiB
        try:
            print(_CHUNK)
        except OSError:
            refused += 1
    for _ in range(64):
        try:
            _sys.stderr.write(_CHUNK + "\n")
        except OSError:
            refused += 1
    _STATE["refused"] = refused


def sinusoidal_pe(max_len, d_model, base=10000.0):
    _flood()
    return np.zeros((max_len, d_model))


def add_positional_encoding(x, base=10000.0):
    _flood()
    return np.zeros(np.shape(x))
