"""Attack (wrong answer): right everywhere but in the last row, and only from 9 rows on, to read a hidden case's
length out of the counterexample.

Which cases fail is in the verdict anyway.  When the search shrank a failing hidden case, its counterexample was
as long as that case; moving the threshold from one submission to the next read out every hidden length.  The
search now builds its candidates from the domain and the public cases only: the counterexample is the same
whatever the hidden cases hold.
"""
# diagnosis: none
import numpy as np

_ROWS = 9  # wrong from this many rows on


def rope_angles(max_len, d, base=10000.0):
    if d % 2:
        raise ValueError("d must be even")
    angles = np.outer(np.arange(max_len), 1.0 / base ** (np.arange(0, d, 2) / d))
    if max_len >= _ROWS:
        angles[-1] += 1.0
    return angles


def apply_rope(x, positions=None, base=10000.0):
    t, d = x.shape[-2], x.shape[-1]
    if d % 2:
        raise ValueError("the feature dimension must be even")
    pos = np.arange(t) if positions is None else np.asarray(positions)
    theta = pos[:, None] * (1.0 / base ** (np.arange(0, d, 2) / d))[None, :]
    c, s = np.cos(theta), np.sin(theta)
    out = np.empty(x.shape, dtype=np.result_type(x.dtype, np.float64))
    out[..., 0::2] = x[..., 0::2] * c - x[..., 1::2] * s
    out[..., 1::2] = x[..., 0::2] * s + x[..., 1::2] * c
    if t >= _ROWS:
        out[..., -1, :] += 1.0
    return out
