"""Learner-shaped sources more than one test module grades: a plain script calling ``check()`` (the README's
example), and an author's own rotary-embedding answer written from scratch."""

SCRIPT = '''\
import numpy as np
from judge import check


def sinusoidal_pe(max_len, d_model, base=10000.0):
    half = d_model // 2
    pos = np.arange(max_len)[:, None]
    angle = pos / base ** (2 * np.arange(half) / d_model)
    table = np.zeros((max_len, d_model))
    table[:, 0:2 * half:2] = np.sin(angle)
    table[:, 1:2 * half:2] = np.cos(angle)
    return table


def add_positional_encoding(x, base=10000.0):
    return x + sinusoidal_pe(x.shape[-2], x.shape[-1], base)


print(sinusoidal_pe(3, 4))        # trying it out, as learners do
data = np.loadtxt("my_data.txt")  # a file the sandbox never sees: not needed by the functions, never run
check(%(problem)s)
'''

ROTARY_MINE = '''\
import numpy as np


def rope_angles(max_len, d, base=10000.0):
    if d % 2 == 1:
        raise ValueError("the feature dimension must be even")
    freqs = 1.0 / base ** (np.arange(d // 2) * 2.0 / d)
    return np.arange(max_len, dtype=np.float64)[:, None] * freqs[None, :]


def apply_rope(x, positions=None, base=10000.0):
    t, d = x.shape[-2], x.shape[-1]
    if d % 2 == 1:
        raise ValueError("the feature dimension must be even")
    where = np.arange(t) if positions is None else np.asarray(positions)
    freqs = 1.0 / base ** (np.arange(d // 2) * 2.0 / d)
    theta = where[:, None].astype(np.float64) * freqs[None, :]
    c, s = np.cos(theta), np.sin(theta)
    first, second = x[..., 0::2], x[..., 1::2]
    out = np.empty(np.broadcast_shapes(x.shape), dtype=np.result_type(x.dtype, np.float64))
    out[..., 0::2] = first * c - second * s
    out[..., 1::2] = first * s + second * c
    return out
'''

#: A right answer whose hidden cases are slow (a pause on the tables only hidden cases ask for, 2048 rows and
#: more): the public phase's verdict is out seconds before the final one, observably, whatever the machine's load.
#: ``time`` is not among the problem's imports; the pause is the test's, not a learner's habit.
SLOW_HIDDEN = '''\
import numpy as np

_pause = __import__("ti" + "me").sleep


def sinusoidal_pe(max_len, d_model, base=10000.0):
    if max_len >= 2048:
        _pause(%(pause)s)
    half = d_model // 2
    angle = np.arange(max_len)[:, None] / base ** (2 * np.arange(half) / d_model)
    table = np.zeros((max_len, d_model))
    table[:, 0:2 * half:2] = np.sin(angle)
    table[:, 1:2 * half:2] = np.cos(angle)
    return table


def add_positional_encoding(x, base=10000.0):
    return x + sinusoidal_pe(x.shape[-2], x.shape[-1], base)
'''
