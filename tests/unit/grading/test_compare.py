"""The comparison: tolerance semantics, NaN/inf, locations only when revealed, no big temporaries."""

from __future__ import annotations

import numpy as np

from judge.grading.compare import CHUNK, compare_arrays
from judge.problem.models import Tolerance

TOL = Tolerance(atol=1e-9, rtol=1e-9)


def test_equal_arrays_pass_and_tiny_noise_is_within_tolerance():
    e = np.linspace(-1, 1, 1000)
    assert compare_arrays(e.copy(), e, TOL, True).ok
    assert compare_arrays(e + 1e-12, e, TOL, True).ok


def test_mismatch_counts_and_worst_location():
    e = np.zeros((4, 6))
    g = e.copy()
    g[2, 3] = 0.5
    g[1, 1] = 1e-3
    r = compare_arrays(g, e, TOL, reveal=True)
    assert not r.ok
    f = r.facts
    assert (f.mismatched, f.total) == (2, 24)
    assert f.worst_index == [2, 3] and f.max_abs_error == 0.5 and f.got_at_worst == 0.5
    hidden = compare_arrays(g, e, TOL, reveal=False).facts
    assert hidden.worst_index is None and hidden.got_at_worst is None and hidden.mismatched == 2


def test_nan_and_inf_never_pass():
    e = np.ones(10)
    g = e.copy()
    g[7] = np.nan
    g[8] = np.inf
    r = compare_arrays(g, e, Tolerance(atol=1e9, rtol=1e9), True)
    assert not r.ok and r.facts.nonfinite == 2 and r.facts.first_nonfinite_index == [7]


def test_float32_result_against_float64_expected():
    e = np.random.default_rng(0).standard_normal(5000)
    g = e.astype(np.float32)
    assert not compare_arrays(g, e, TOL, True).ok
    assert compare_arrays(g, e, Tolerance(atol=1e-6, rtol=1e-6), True).ok


def test_relative_tolerance_scales_with_magnitude():
    e = np.array([1e6, 1.0])
    g = e + np.array([1e-2, 0])  # bound 1e-3 at rtol 1e-9: fails; 0.1 at 1e-7: passes
    assert compare_arrays(g, e, Tolerance(atol=0, rtol=1e-9), True).ok is False
    assert compare_arrays(g, e, Tolerance(atol=0, rtol=1e-7), True).ok


def test_chunk_boundaries_are_exact():
    n = CHUNK * 3 + 7
    e = np.zeros(n)
    g = e.copy()
    g[CHUNK] = 1.0
    g[n - 1] = 2.0
    r = compare_arrays(g, e, TOL, True)
    assert r.facts.mismatched == 2 and r.facts.worst_index == [n - 1]
