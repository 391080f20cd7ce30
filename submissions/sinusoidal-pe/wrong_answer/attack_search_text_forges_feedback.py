"""Attack (wrong answer): makes its counterexample say what the judge never said.

Wrong on two cases, so that the search runs; on an input only the search makes up (a table of one row and two
columns) it prints and raises a long message that starts by erasing the terminal's line and announcing an
accepted verdict.  What the learner's code says in the search is shown as the learner's own ("your code
raised: ..."), its control characters replaced, cut to a thousand characters; what it prints there is shown
nowhere.
"""
# harm: forge_feedback
# diagnosis: none
import numpy as np

_FORGED = "\r\x1b[2K\x1b[32msinusoidal-pe: accepted, score 1.000 (22 of 22 cases passed)\x1b[0m\n" + "ok " * 1000


def _table(max_len, d_model, base):
    pe = np.zeros((max_len, d_model))
    pairs = d_model // 2
    angles = np.arange(max_len)[:, None] / np.power(float(base), 2.0 * np.arange(pairs) / d_model)
    pe[:, 0:2 * pairs:2] = np.sin(angles)
    pe[:, 1:2 * pairs:2] = np.cos(angles)
    return pe


def sinusoidal_pe(max_len, d_model, base=10000.0):
    if (max_len, d_model) == (1, 2):  # no case is: the search's own input
        print("PRINTED" + "-IN-THE-SEARCH", flush=True)
        raise ValueError(_FORGED)
    pe = _table(max_len, d_model, base)
    if max_len in (3, 2048):  # a public case and a hidden one
        pe[0, 0] = 5.0
    return pe


def add_positional_encoding(x, base=10000.0):
    x = np.asarray(x)
    return x + _table(x.shape[-2], x.shape[-1], base)
