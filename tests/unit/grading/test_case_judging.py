"""Judging a run's slots while it goes on (:class:`judge.grading.slots.CaseJudging`).

The unit tests write result slots the way the harness does (array bytes first, then
the header; torn headers in between) and check that judging them early, at any
point, ends in exactly the results of judging the final buffer once after the run;
that a slot rewritten after it was judged is judged again; and that weakly-ordered
machines judge nothing early.  The sandbox test checks, on a real run, that the
slots of the cases before a slow last call are judged while that call still runs.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from judge.sandbox import wire
from tests.support.common import clear_slot_headers

OUTCOMES = ("correct", "wrong", "raised", "other", "float32", "wrong_shape")


# Fixtures ``prepared`` and ``results``: tests/conftest.py.


def _slot(case, outcome: str, time_ns: int = 1000) -> tuple[np.ndarray | None, bytes]:
    """What an honest harness writes for ``outcome``: the array (or None) and the header bytes."""
    fields: dict = {"time_ns": time_ns, "changed": [], "spans": [0, 3, 0, 0]}
    expected = np.asarray(case.expected)
    if outcome == "raised" or case.spec.raises is not None and outcome in ("correct", "wrong"):
        exception = [case.spec.raises or "ValueError", "Exception", "BaseException", "object"]
        fields.update(outcome=wire.RAISED, message="ValueError: no", exception=exception)
        return None, wire.encode_header(fields)
    if outcome == "other":
        fields.update(outcome=wire.RETURNED_OTHER, message="a list of 3 items")
        return None, wire.encode_header(fields)
    if outcome == "wrong_shape":
        array = np.zeros((2, 3))
    elif outcome == "float32":
        array = expected.astype(np.float32)
    else:
        array = expected + (1.0 if outcome == "wrong" else 0.0)
    fields.update(outcome=wire.RETURNED_ARRAY, dtype=array.dtype.str, shape=list(array.shape), nbytes=array.nbytes)
    return array, wire.encode_header(fields)


def _write(results, case, array: np.ndarray | None, header: bytes, upto: int | None = None) -> None:
    """The harness's _write: data, then header (``upto``: only that many header bytes, a torn write)."""
    if array is not None:
        start = case.slot_offset + wire.SLOT_HEADER_SIZE
        results[start:start + array.nbytes] = array.tobytes()
    if upto is None:
        results[case.slot_offset:case.slot_offset + len(header)] = header
    else:  # a copy caught half way, from either end
        results[case.slot_offset + len(header) - upto:case.slot_offset + len(header)] = header[-upto:]


def _dump(cases, observed, spans) -> tuple:
    kept = {i: (o.outcome, o.message, None if o.got is None else o.got.tobytes()) for i, o in observed.items()}
    return [c.model_dump() for c in cases], kept, spans


def _after_the_run(prepared, results, report):
    from judge.grading.slots import judge_cases

    judged = judge_cases(prepared, report, results)
    return _dump(judged.cases, judged.observed, judged.spans), judged.killed_for


# The two largest cases (64 and 32 MiB) make every example slow: they are written only in some.
SMALL = st.sampled_from(OUTCOMES)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                   HealthCheck.too_slow])
@given(data=st.data())
def test_judging_early_ends_as_judging_after_the_run(prepared, results, data):
    """Whatever moments the judge looks at the buffer while the harness writes it, the final results,
    observed outputs and spans are those of judging the final buffer once."""
    from judge.grading.slots import CaseJudging
    from judge.sandbox.boundary.contract import RunReport

    clear_slot_headers(prepared, results)
    written = data.draw(st.integers(0, len(prepared.cases)), label="cases written before the process ended")
    judging = CaseJudging(prepared, results)
    for case in prepared.cases[:written]:
        big = case.expected.nbytes > (1 << 20)
        outcome = data.draw(st.sampled_from(("raised", "other", "wrong_shape")) if big and not data.draw(
            st.booleans(), label="write the large output") else SMALL, label=f"outcome of {case.spec.id}")
        array, header = _slot(case, outcome)
        if data.draw(st.booleans(), label="look during a torn header"):
            _write(results, case, array, header, upto=data.draw(st.integers(1, len(header) - 1)))
            judging.judge_written()
        _write(results, case, array, header)
        if data.draw(st.booleans(), label="look after the slot"):
            assert judging.judge_written() <= written
    report = RunReport(exit_code=0) if written == len(prepared.cases) else RunReport(signal=9)
    judged = judging.finish(report)
    assert (_dump(judged.cases, judged.observed, judged.spans), judged.killed_for) == \
        _after_the_run(prepared, results, report)


def _all_correct(prepared, results, judging=None) -> None:
    for case in prepared.cases:
        _write(results, case, *_slot(case, "correct"))
        if judging is not None:
            judging.judge_written()


@pytest.mark.parametrize(
    "first, then, status", [("wrong", "correct", "accepted"), ("correct", "wrong", "wrong_answer")]
)
def test_a_slot_rewritten_after_it_was_judged_is_judged_again(prepared, results, first, then, status):
    """Only code that reaches the harness's mapping can rewrite a slot; its result is then what the slot holds
    at the end, as if nothing had been judged early."""
    from judge.grading.slots import CaseJudging
    from judge.sandbox.boundary.contract import RunReport

    clear_slot_headers(prepared, results)
    judging = CaseJudging(prepared, results)
    case = prepared.cases[0]
    _write(results, case, *_slot(case, first, time_ns=1000))
    assert judging.judge_written() == 1
    _all_correct(prepared, results, judging)
    _write(results, case, *_slot(case, then, time_ns=2000))
    cases = judging.finish(RunReport(exit_code=0)).cases
    assert cases[0].status.value == status
    assert [c.status.value for c in cases[1:]] == ["accepted"] * (len(cases) - 1)


def test_a_header_that_never_completes_is_judged_after_the_run(prepared, results):
    """A slot whose header stays malformed is never judged early, and the cases after it wait for the end."""
    from judge.grading.slots import CaseJudging
    from judge.sandbox.boundary.contract import RunReport

    clear_slot_headers(prepared, results)
    judging = CaseJudging(prepared, results)
    _all_correct(prepared, results)
    case = prepared.cases[3]
    results[case.slot_offset:case.slot_offset + 12] = b"JDGSLOT1" + (4000).to_bytes(4, "little")
    assert judging.judge_written() == 3
    cases = judging.finish(RunReport(exit_code=0)).cases
    assert cases[3].status.value == "wrong_answer" and "could not be read" in cases[3].message
    assert all(c.status.value == "accepted" for i, c in enumerate(cases) if i != 3)


def test_weakly_ordered_machines_judge_nothing_early(prepared, results, monkeypatch):
    """Without total store order a header may be seen before the array bytes it follows: judge after the run."""
    import judge.grading.slots as outcome
    from judge.sandbox.boundary.contract import RunReport

    monkeypatch.setattr(outcome, "STORES_IN_ORDER", False)
    clear_slot_headers(prepared, results)
    judging = outcome.CaseJudging(prepared, results)
    _all_correct(prepared, results, judging)
    assert judging.judge_written() == 0
    cases = judging.finish(RunReport(exit_code=0)).cases
    assert all(c.status.value == "accepted" for c in cases)


SLOW_LAST_CALL = '''
import numpy as np

def sinusoidal_pe(max_len, d_model, base=10000.0):
    if (max_len, d_model) == (64, 32):  # the suite's last case: ~1 s of busy work first
        for _ in range(120):
            np.sin(np.arange(1_000_000.0))
    pos = np.arange(max_len)[:, None]
    i = np.arange(0, d_model - d_model % 2, 2)
    angles = pos / base ** (i / d_model)
    pe = np.zeros((max_len, d_model))
    pe[:, 0:d_model - d_model % 2:2] = np.sin(angles)
    pe[:, 1:d_model - d_model % 2:2] = np.cos(angles)
    return pe

def add_positional_encoding(x, base=10000.0):
    return x + sinusoidal_pe(x.shape[-2], x.shape[-1], base)
'''


def test_a_real_run_is_judged_while_its_last_call_runs(judge, monkeypatch):
    """On a real sandboxed run, every case before a slow last call is judged while that call still runs."""
    from judge.grading import slots as outcome

    if not outcome.STORES_IN_ORDER:
        pytest.skip("this machine's stores are not totally ordered: every slot is judged after the run")
    cases = judge.problem("sinusoidal-pe").cases
    assert cases[-1].spec.id == "ex-table-64x32"
    counts: list[int] = []
    judge_written = outcome.CaseJudging.judge_written

    def spy(self):
        counts.append(judge_written(self))
        return counts[-1]

    monkeypatch.setattr(outcome.CaseJudging, "judge_written", spy)
    verdict = judge.grade(SLOW_LAST_CALL, "sinusoidal-pe")
    assert verdict.status.value == "accepted", verdict.model_dump_json(indent=1)[:2000]
    assert verdict.cases[-1].time_ms > 300
    # Polled every 2 ms: all earlier cases judged, the judge then waits ~0.3 s or more for the last call.
    assert counts.count(len(cases) - 1) >= 50, counts
