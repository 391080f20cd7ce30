"""Attack (wrong answer): prints what makes careless text processing slow, then returns zeros.

A red team printed 16 KiB of newlines on stdout and stderr: a regular expression over
the captured output (looking for forged "accepted" lines) backtracked quadratically and
held the judge's own process ~12 s per verdict, outside every limit a learner has.  This
file fills both streams to the bundle's output limit with the shapes that hurt such
code: runs of newlines, blank lines of spaces, "status=" followed by newlines, one very
long line, and deeply nested brackets.  The judge's work on it must stay linear."""
# harm: stall_the_judge
# diagnosis: constant_output
import numpy as np

_sys = __import__("sys")
_DONE = []
_KIB = 1024


def _print():
    pieces = ["\n" * (96 * _KIB), " \n" * (48 * _KIB), "status=" + "\n" * (64 * _KIB), "x" * (200 * _KIB) + "\n",
              "[" * (64 * _KIB) + "]" * (64 * _KIB) + "\n", ("verdict: " + " " * 4000 + "\n") * 16]
    for stream in (_sys.stdout, _sys.stderr):
        for piece in pieces:
            try:
                stream.write(piece)
                stream.flush()
            except OSError:
                break


def sinusoidal_pe(max_len, d_model, base=10000.0):
    if not _DONE:
        _DONE.append(1)
        _print()
    return np.zeros((max_len, d_model))


def add_positional_encoding(x, base=10000.0):
    return np.zeros(np.shape(x))
