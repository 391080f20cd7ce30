"""Accepted: computes exp(i * angle) once and takes imaginary part (sin) and
real part (cos); interleaving done with a (T, n, 2) view."""
import numpy as np


def sinusoidal_pe(max_len, d_model, base=10000.0):
    n = d_model // 2
    freqs = base ** (-(2.0 * np.arange(n)) / d_model)
    z = np.exp(1j * np.einsum("p,k->pk", np.arange(max_len, dtype=np.float64), freqs))
    pe = np.zeros((max_len, d_model))
    pairs = pe[:, :2 * n].reshape(max_len, n, 2)  # a view into pe
    pairs[..., 0] = z.imag
    pairs[..., 1] = z.real
    return pe


def add_positional_encoding(x, base=10000.0):
    x = np.asarray(x)
    return x + sinusoidal_pe(*x.shape[-2:], base=base)
