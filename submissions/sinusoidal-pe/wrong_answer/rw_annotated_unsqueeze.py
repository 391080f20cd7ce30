"""Real-world formulation (the Annotated Transformer's PositionalEncoding, translated): the table is
built right, then given a leading batch axis (pe.unsqueeze(0)) so it can be stored and sliced as
pe[:, :T]; the learner returns it with that axis."""
# diagnosis: extra_leading_axis
import numpy as np


def _table(max_len, d_model, base):
    pe = np.zeros((max_len, d_model))
    position = np.arange(max_len, dtype=np.float64)[:, None]
    div_term = np.exp(np.arange(0, d_model - 1, 2) * (-np.log(base) / d_model))
    pe[:, 0:2 * len(div_term):2] = np.sin(position * div_term)
    pe[:, 1:2 * len(div_term):2] = np.cos(position * div_term)
    return pe


def sinusoidal_pe(max_len, d_model, base=10000.0):
    return _table(max_len, d_model, base)[np.newaxis]


def add_positional_encoding(x, base=10000.0):
    x = np.asarray(x)
    return x + _table(x.shape[-2], x.shape[-1], base)
