"""Real-world formulation (the textbook double loop over every column, element by element with numpy
scalars, translated): every value is right, but 8 million Python-level iterations on the 8192 x 1024
table take far longer than a call may (~14 s here against the 4 s limit, so even a test's doubled
limit is far away)."""
import numpy as np


def sinusoidal_pe(max_len, d_model, base=10000.0):
    pe = np.zeros((max_len, d_model))
    for pos in range(max_len):
        for j in range(2 * (d_model // 2)):  # an odd d_model's last column stays 0
            angle = pos / np.power(base, (j - j % 2) / d_model)
            pe[pos, j] = np.sin(angle) if j % 2 == 0 else np.cos(angle)
    return pe


def add_positional_encoding(x, base=10000.0):
    x = np.asarray(x)
    return x + sinusoidal_pe(x.shape[-2], x.shape[-1], base)
