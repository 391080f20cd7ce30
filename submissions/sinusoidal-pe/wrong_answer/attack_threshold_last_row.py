"""Attack (wrong answer): right everywhere but in the last row, and only from 9 rows on, to read a hidden case's
length out of the counterexample.

Which cases fail is in the verdict anyway (the hidden ones among them by id).  What this file is after is more:
when the search shrank a failing hidden case, the counterexample it showed was exactly as long as that case
(here max_len=9, the length of a hidden table); moving the threshold from one submission to the next read out
every hidden length.  The search now builds its candidates from the domain and the public cases only, climbing a
ladder of lengths that no hidden case chose: the counterexample is the same whatever the hidden cases hold.
"""
# harm: leak_hidden_cases
# diagnosis: none
import numpy as np

_ROWS = 9  # wrong from this many rows on


def _table(max_len, d_model, base):
    pe = np.zeros((max_len, d_model))
    pairs = d_model // 2
    angles = np.arange(max_len)[:, None] / np.power(float(base), 2.0 * np.arange(pairs) / d_model)
    pe[:, 0:2 * pairs:2] = np.sin(angles)
    pe[:, 1:2 * pairs:2] = np.cos(angles)
    return pe


def sinusoidal_pe(max_len, d_model, base=10000.0):
    pe = _table(max_len, d_model, base)
    if max_len >= _ROWS:
        pe[-1] += 1.0
    return pe


def add_positional_encoding(x, base=10000.0):
    x = np.asarray(x)
    pe = _table(x.shape[-2], x.shape[-1], base)
    if x.shape[-2] >= _ROWS:
        pe[-1] += 1.0
    return x + pe
