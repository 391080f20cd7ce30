"""Known mistakes for rotary-embedding, as small wrong implementations, and property checks.

Imported only in the judge's process (like reference.py): the judge runs each
mistaken implementation on a failing case's inputs and compares it with what the
learner returned.  Every ``*_rope`` has the signature of ``apply_rope`` and every
``*_angles`` that of ``rope_angles``.
"""

import numpy as np


def _freqs(d, base, *, grow=False, numerator=2.0, divisor=None, dtype=np.float64):
    base = dtype(base)
    exps = numerator * np.arange(d // 2, dtype=dtype) / dtype(divisor(d) if divisor else d)
    return np.power(base, exps) if grow else np.power(base, -exps)


def _angles(positions, d, base, dtype=np.float64, **mistake):
    p = np.asarray(positions).astype(dtype)
    return p[:, None] * _freqs(d, base, dtype=dtype, **mistake)[None, :]


def _rope(x, positions=None, base=10000.0, *, halves=False, sign=1.0, ignore_positions=False, start=0,
          swap=False, first_axis=False, allow_odd=False, dtype=np.float64, **freq):
    """The reference rotation with one of the known mistakes switched on."""
    x = np.asarray(x)
    t, d = x.shape[-2], x.shape[-1]
    if d % 2 and not allow_odd:
        raise ValueError("odd d")
    pairs = d // 2
    if first_axis and positions is None:  # a row's position is its index along axis 0 (a batch axis, if any)
        p = np.arange(x.shape[0])
    elif positions is None or ignore_positions:
        p = np.arange(start, start + t)
    else:
        p = np.asarray(positions)
    theta = sign * _angles(p, d, base, dtype=dtype, **freq).astype(np.float64)  # d // 2 pairs, divided by d
    if first_axis and positions is None and x.ndim > 2:
        theta = theta.reshape((x.shape[0],) + (1,) * (x.ndim - 2) + (pairs,))
    cos, sin = np.cos(theta), np.sin(theta)
    if swap:
        cos, sin = sin, cos
    out = np.array(x, dtype=np.float64)
    if halves:  # rotate_half: pairs (i, i + d/2), not adjacent columns
        a, b = x[..., :pairs].astype(np.float64), x[..., pairs:2 * pairs].astype(np.float64)
        out[..., :pairs] = a * cos - b * sin
        out[..., pairs:2 * pairs] = a * sin + b * cos
        return out
    a, b = x[..., 0:2 * pairs:2].astype(np.float64), x[..., 1:2 * pairs:2].astype(np.float64)
    out[..., 0:2 * pairs:2] = a * cos - b * sin
    out[..., 1:2 * pairs:2] = a * sin + b * cos
    return out


def _table(max_len, d, base=10000.0, *, allow_odd=False, start=0, sign=1.0, dtype=np.float64, **freq):
    if d % 2 and not allow_odd:
        raise ValueError("odd d")
    if d % 2:  # the natural code without the check: one column per even index 0, 2, ..., d - 1
        return np.arange(max_len)[:, None] * float(base) ** (-np.arange(0, d, 2) / d)
    return sign * _angles(np.arange(start, start + max_len), d, base, dtype=dtype, **freq)


def _pair(**mistake):
    """The mistaken ``apply_rope`` and ``rope_angles`` for one mistake."""
    table_keys = {"allow_odd", "start", "sign", "dtype", "grow", "numerator", "divisor"}

    def rope(x, positions=None, base=10000.0):
        return _rope(x, positions, base, **mistake)

    def angles(max_len, d, base=10000.0):
        return _table(max_len, d, base, **{k: v for k, v in mistake.items() if k in table_keys})

    return rope, angles


half_split_rope, _ = _pair(halves=True)
negative_angle_rope, negative_angle_angles = _pair(sign=-1.0)
positions_ignored_rope, _ = _pair(ignore_positions=True)
grow_rope, grow_angles = _pair(grow=True)
i_not_2i_rope, i_not_2i_angles = _pair(numerator=1.0)
d_minus_1_rope, d_minus_1_angles = _pair(divisor=lambda d: d - 1)
swapped_rope, _ = _pair(swap=True)
float32_angles_rope, float32_angles_angles = _pair(dtype=np.float32)
first_axis_rope, _ = _pair(first_axis=True)
off_by_one_rope, off_by_one_angles = _pair(start=1)
odd_allowed_rope, odd_allowed_angles = _pair(allow_odd=True)


# -- property checks: check(function, args, got) -> True (holds), False, or None (not applicable) --

def _pairs_complex(function, args, got):
    """The input's and the output's column pairs as complex numbers (apply_rope only)."""
    if function != "apply_rope":
        return None
    x = np.asarray(args["x"], dtype=np.float64)
    got = np.asarray(got, dtype=np.float64)
    if x.shape != got.shape or x.shape[-1] % 2 or x.shape[-1] < 2:
        return None
    return x[..., 0::2] + 1j * x[..., 1::2], got[..., 0::2] + 1j * got[..., 1::2]


def pair_norm_preserved(function, args, got):
    pairs = _pairs_complex(function, args, got)
    if pairs is None:
        return None
    before, after = pairs
    with np.errstate(invalid="ignore", over="ignore"):
        return bool(np.all(np.abs(np.abs(after) - np.abs(before)) <= 1e-6 * (1 + np.abs(before))))


def relative_position(function, args, got):
    """The dot product of two rotated rows depends only on their positions' difference: the turn applied to
    pair i, as a unit complex number r[t, i] = out / x, satisfies r[a] * conj(r[b]) = r[c] * conj(r[d])
    whenever p_a - p_b = p_c - p_d (checked on the first batch item's rows)."""
    pairs = _pairs_complex(function, args, got)
    if pairs is None:
        return None
    before, after = pairs
    before = before.reshape((-1,) + before.shape[-2:])[0][:64]
    after = after.reshape((-1,) + after.shape[-2:])[0][:64]
    usable = np.abs(before) > 1e-3
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        turn = np.where(usable, after / np.where(usable, before, 1) , np.nan)
        turn = turn / np.abs(turn)
    t = before.shape[0]
    positions = args.get("positions")
    p = np.arange(t) if positions is None else np.asarray(positions)[:t]
    seen = {}
    for a in range(t):
        for b in range(t):
            rel = turn[a] * np.conj(turn[b])
            key = int(p[a] - p[b])
            if key in seen:
                ok = np.isnan(rel) | np.isnan(seen[key]) | (np.abs(rel - seen[key]) <= 1e-6)
                if not ok.all():
                    return False
            else:
                seen[key] = rel
    return True
