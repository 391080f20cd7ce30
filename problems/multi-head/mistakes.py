"""Known mistakes for multi-head, as small wrong implementations (each with its function's signature)."""

import numpy as np


def _check(d, n_heads):
    if d % n_heads:
        raise ValueError("not divisible")


def reshape_only_split(x, n_heads):
    """x.reshape(..., n_heads, T, Dh) straight away: the elements land in the wrong heads and positions."""
    x = np.asarray(x)
    *lead, t, d = x.shape
    _check(d, n_heads)
    return x.reshape(*lead, n_heads, t, d // n_heads).copy()


def strided_split(x, n_heads):
    """Head h holds columns h, h + H, h + 2H, ... (a reshape to (..., T, Dh, H))."""
    x = np.asarray(x)
    *lead, t, d = x.shape
    _check(d, n_heads)
    return np.moveaxis(x.reshape(*lead, t, d // n_heads, n_heads), -1, -3).copy()


def heads_last_split(x, n_heads):
    """The (..., T, H, Dh) reshape returned without moving the head axis in front of T."""
    x = np.asarray(x)
    *lead, t, d = x.shape
    _check(d, n_heads)
    return x.reshape(*lead, t, n_heads, d // n_heads).copy()


def remainder_dropped(x, n_heads):
    """Dh = D // n_heads and the leftover columns silently dropped, no ValueError."""
    x = np.asarray(x)
    *lead, t, d = x.shape
    dh = d // n_heads
    return np.swapaxes(x[..., :n_heads * dh].reshape(*lead, t, n_heads, dh), -3, -2).copy()


def reshape_only_merge(x):
    """x.reshape(..., T, H * Dh) straight away, the head axis never moved back behind T."""
    x = np.asarray(x)
    *lead, h, t, dh = x.shape
    return x.reshape(*lead, t, h * dh).copy()


def strided_merge(x):
    """The inverse of the strided split: head h's values in columns h, h + H, ..."""
    x = np.asarray(x)
    *lead, h, t, dh = x.shape
    return np.moveaxis(x, -3, -1).reshape(*lead, t, dh * h).copy()
