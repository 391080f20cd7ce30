"""Accepted: each pair as a complex number, rotated by multiplying with e^{i theta} (as in LLaMA's code)."""
import numpy as np


def rope_angles(max_len, d, base=10000.0):
    if d % 2:
        raise ValueError(f"odd d={d}")
    freqs = base ** (-np.arange(0, d, 2, dtype=np.float64) / d)
    return np.arange(max_len, dtype=np.float64)[:, None] * freqs


def apply_rope(x, positions=None, base=10000.0):
    d = x.shape[-1]
    if d % 2:
        raise ValueError(f"odd d={d}")
    t = x.shape[-2]
    angles = rope_angles(t, d, base) if positions is None else \
        np.asarray(positions, dtype=np.float64)[:, None] * base ** (-np.arange(0, d, 2) / d)
    z = x[..., 0::2].astype(np.complex128) + 1j * x[..., 1::2]
    z = z * np.exp(1j * angles)
    return np.stack([z.real, z.imag], axis=-1).reshape(x.shape)
