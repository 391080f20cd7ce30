"""Real-world formulation (a misread of the formula seen in forum questions): "PE(pos, 2i) = sin,
PE(pos, 2i+1) = cos" read as even/odd *positions*: sin on even rows, cos on odd rows, for every
column (the unpaired last one included).  Outside the bank."""
# diagnosis: none
# facts: arrangement=row_parity,odd=filled
import numpy as np


def sinusoidal_pe(max_len, d_model, base=10000.0):
    pe = np.zeros((max_len, d_model))
    j = np.arange(d_model)
    for pos in range(max_len):
        angle = pos / base ** (2 * (j // 2) / d_model)
        pe[pos] = np.sin(angle) if pos % 2 == 0 else np.cos(angle)
    return pe


def add_positional_encoding(x, base=10000.0):
    x = np.asarray(x)
    return x + sinusoidal_pe(x.shape[-2], x.shape[-1], base)
