"""JUDGE_TIME_SCALE: the loader multiplies every time limit, nothing else, and refuses bad values."""

from __future__ import annotations

import pytest

from judge.errors import JudgeError
from judge.problem.loader import load_problem


def test_time_limits_are_scaled_and_nothing_else(monkeypatch):
    monkeypatch.delenv("JUDGE_TIME_SCALE", raising=False)
    plain = load_problem("sinusoidal-pe")
    monkeypatch.setenv("JUDGE_TIME_SCALE", "2.5")
    scaled = load_problem("sinusoidal-pe")
    a, b = plain.spec.limits, scaled.spec.limits
    assert (b.cpu_seconds, b.wall_seconds, b.case_wall_seconds) == (
        a.cpu_seconds * 2.5, a.wall_seconds * 2.5, a.case_wall_seconds * 2.5)
    assert (b.memory_mib, b.processes, b.output_kib) == (a.memory_mib, a.processes, a.output_kib)
    assert scaled.digest == plain.digest  # the bundle itself is unchanged
    for before, after in zip(plain.cases.cases, scaled.cases.cases):
        if before.case_wall_seconds is not None:
            assert after.case_wall_seconds == before.case_wall_seconds * 2.5


@pytest.mark.parametrize("value", ["fast", "0.5", "0"])
def test_bad_scale_is_a_clear_error(monkeypatch, value):
    monkeypatch.setenv("JUDGE_TIME_SCALE", value)
    with pytest.raises(JudgeError, match="JUDGE_TIME_SCALE"):
        load_problem("sinusoidal-pe")
