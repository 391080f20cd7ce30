"""Compares a learner's output with the reference's, in the judge's process.

Chunked and vectorised: one pass over both arrays with small reusable buffers,
so the 8192 x 1024 case costs a few milliseconds and no full-size temporaries
(numpy.testing.assert_allclose makes several).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from judge.problem.models import Tolerance
from judge.verdict import NumericFacts

CHUNK = 1 << 16


@dataclass
class Comparison:
    ok: bool
    facts: NumericFacts


def within_tolerance(got: np.ndarray, expected: np.ndarray, tol: Tolerance) -> bool:
    """The fast path for correct outputs: six cache-resident passes per chunk, stop at the first miss.

    NaN and inf fail the ``<=`` test by themselves, so no separate finiteness pass is needed.
    """
    with np.errstate(invalid="ignore", over="ignore"):  # inf - inf in a learner's output fails quietly
        return _within(got.reshape(-1), expected.reshape(-1), tol)


def _within(g: np.ndarray, e: np.ndarray, tol: Tolerance) -> bool:
    n = e.size
    size = min(CHUNK, max(n, 1))
    diff, bound, mask = np.empty(size), np.empty(size), np.empty(size, dtype=bool)
    for start in range(0, n, CHUNK):
        stop = min(start + CHUNK, n)
        d, b, m = diff[: stop - start], bound[: stop - start], mask[: stop - start]
        np.subtract(g[start:stop], e[start:stop], out=d, casting="unsafe")
        np.abs(d, out=d)
        np.abs(e[start:stop], out=b)
        b *= tol.rtol
        b += tol.atol
        if not np.less_equal(d, b, out=m).all():
            return False
    return True


def tolerance_ratio(got: np.ndarray, expected: np.ndarray, tol: Tolerance) -> float:
    """The largest |got - expected| / (atol + rtol * |expected|): 1 is the tolerance's edge, <= 1 passes.

    Authors read it as a margin (``judge verify``): how far correct outputs sit inside the tolerance
    and wrong ones outside.  NaN or inf gives inf; a zero bound with a nonzero error gives inf."""
    g = got.reshape(-1)
    e = expected.reshape(-1)
    worst = 0.0
    for start in range(0, e.size, CHUNK):
        stop = min(start + CHUNK, e.size)
        d = np.abs(np.subtract(g[start:stop], e[start:stop], dtype=np.float64))
        b = np.abs(e[start:stop].astype(np.float64)) * tol.rtol + tol.atol
        with np.errstate(divide="ignore", invalid="ignore"):
            r = np.where(d == 0, 0.0, d / b)
        if not np.isfinite(r).all():
            return float("inf")
        worst = max(worst, float(r.max(initial=0.0)))
    return worst


def compare_arrays(got: np.ndarray, expected: np.ndarray, tol: Tolerance, reveal: bool) -> Comparison:
    """Elementwise |got - expected| <= atol + rtol*|expected|; NaN and inf never pass.

    Correct outputs take the fast path; the facts (errors, counts, locations) are
    gathered in a second, fuller pass only for outputs that fail.
    """
    if within_tolerance(got, expected, tol):
        return Comparison(ok=True, facts=NumericFacts(total=int(expected.size), mismatched=0,
                                                      atol=tol.atol, rtol=tol.rtol))
    with np.errstate(invalid="ignore", over="ignore"):  # inf - inf in a learner's output: a fact, not a warning
        return _facts(got, expected, tol, reveal)


def _facts(got: np.ndarray, expected: np.ndarray, tol: Tolerance, reveal: bool) -> Comparison:
    """The second, fuller pass of :func:`compare_arrays` over an output that failed."""
    g = got.reshape(-1)
    e = expected.reshape(-1)
    n = e.size
    diff = np.empty(min(CHUNK, max(n, 1)))
    bound = np.empty_like(diff)
    mismatched = nonfinite = 0
    first_nonfinite = -1
    worst_abs, worst_at, worst_rel = -1.0, -1, 0.0
    for start in range(0, n, CHUNK):
        stop = min(start + CHUNK, n)
        d, b = diff[: stop - start], bound[: stop - start]
        np.subtract(g[start:stop], e[start:stop], out=d, casting="unsafe")
        np.abs(d, out=d)
        finite = np.isfinite(d)
        if not finite.all():
            bad = int(np.count_nonzero(~finite))
            if first_nonfinite < 0:
                first_nonfinite = start + int(np.argmin(finite))
            nonfinite += bad
            d[~finite] = np.inf
        np.abs(e[start:stop], out=b)
        np.multiply(b, tol.rtol, out=b)
        np.add(b, tol.atol, out=b)
        mismatched += int(np.count_nonzero(d > b))
        i = int(np.argmax(d))
        if d[i] > worst_abs:
            worst_abs, worst_at = float(d[i]), start + i
        with np.errstate(divide="ignore", invalid="ignore"):
            np.divide(d, np.abs(e[start:stop]), out=b)
        b[np.isnan(b)] = 0.0
        worst_rel = max(worst_rel, float(b.max()))
    facts = NumericFacts(total=int(n), mismatched=mismatched, nonfinite=nonfinite, atol=tol.atol, rtol=tol.rtol)
    if n:
        facts.max_abs_error = worst_abs
        facts.max_rel_error = worst_rel
        if reveal:
            facts.worst_index = [int(i) for i in np.unravel_index(worst_at, expected.shape)]
            facts.expected_at_worst = float(e[worst_at])
            facts.got_at_worst = float(g[worst_at])
            if first_nonfinite >= 0:
                facts.first_nonfinite_index = [int(i) for i in np.unravel_index(first_nonfinite, expected.shape)]
    return Comparison(ok=mismatched == 0 and nonfinite == 0, facts=facts)
