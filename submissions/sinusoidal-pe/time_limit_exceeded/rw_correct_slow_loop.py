"""Real-world formulation (the textbook double loop, element by element with numpy scalars, each row
stacked onto the table as it is finished -- a beginner's way to grow an array -- translated): every
value is right, but 8 million Python-level iterations and a copy of the whole table per row make the
8192 x 1024 case quadratic: far longer than a call may, on any machine (the loop alone took ~14 s on
one machine and ~7 s on a faster one; the stacking alone copies ~270 GB), so even a test's doubled
limit is far away."""
import numpy as np


def sinusoidal_pe(max_len, d_model, base=10000.0):
    pe = np.zeros((0, d_model))
    for pos in range(max_len):
        row = np.zeros(d_model)
        for j in range(2 * (d_model // 2)):  # an odd d_model's last column stays 0
            angle = pos / np.power(base, (j - j % 2) / d_model)
            row[j] = np.sin(angle) if j % 2 == 0 else np.cos(angle)
        pe = np.vstack([pe, row])
    return pe


def add_positional_encoding(x, base=10000.0):
    x = np.asarray(x)
    return x + sinusoidal_pe(x.shape[-2], x.shape[-1], base)
