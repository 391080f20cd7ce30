{"cells": [], "nbformat": 4, "note": "a dict literal, not a notebook"}.get("cells")
"""Accepted: a Python file whose first line is a dict literal that reads like a notebook's JSON.  Its name says
it is Python, and without a name it still does not parse as a notebook: it is graded as the Python it is, never
refused as "not valid JSON"."""
import numpy as np


def sinusoidal_pe(max_len, d_model, base=10000.0):
    half = d_model // 2
    rates = float(base) ** (-2.0 * np.arange(half) / d_model)
    phase = np.arange(max_len, dtype=np.float64)[:, None] * rates[None, :]
    table = np.zeros((max_len, d_model))
    table[:, 0:2 * half:2] = np.sin(phase)
    table[:, 1:2 * half:2] = np.cos(phase)
    return table


def add_positional_encoding(x, base=10000.0):
    x = np.asarray(x)
    return x + sinusoidal_pe(x.shape[-2], x.shape[-1], base)
