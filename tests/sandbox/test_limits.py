"""Every limit produces its own status, decided from the kernel's records (real sandbox, no mocks).

Wall-time cases cost the full per-call limit (4 s) so there are few of them; the CPU
limit is shown on a temporary copy of the bundle whose limits were lowered to 1 s.
"""

from __future__ import annotations

import time

import pytest

from tests.support.common import roomy_problem
from tests.support.sandbox import (
    CORRECT,
    FORK_50,
    assert_still_grades,
    cgroup_pids,
    learner,
    leftover_learner_processes,
    require_sandbox,
    worker_name,
)

OUTPUT_LIMIT = 1024 << 10
OUTPUT_KEEP = 16 << 10


@pytest.fixture(scope="module")
def lj():
    require_sandbox()
    from judge import Judge

    with Judge() as j:
        yield j


def _S():
    from judge.verdict import Status

    return Status


def _after_fatal_all_skipped(v, first: int = 0) -> None:
    Status = _S()
    assert all(c.status is Status.SKIPPED for c in v.cases[first + 1:]), [c.status for c in v.cases]
    assert all("earlier case ended the process" in c.message for c in v.cases[first + 1:])


# --------------------------------------------------------------------------- wall time

def test_infinite_loop_is_wall_time_limit(lj):
    Status = _S()
    started = time.monotonic()
    v = lj.grade(learner("while True:\n    pass"), "sinusoidal-pe")
    took = time.monotonic() - started
    assert v.status is Status.TIME_LIMIT_EXCEEDED, (v.status, v.message)
    assert took < 8, took
    assert v.resources.killed_for and "wall-time" in v.resources.killed_for, v.resources
    assert v.resources.signal == 9
    assert v.cases[0].status is Status.TIME_LIMIT_EXCEEDED
    assert v.cases[0].id == "ex-table-3x4"
    assert 3500 <= v.resources.wall_ms < 8000, v.resources.wall_ms
    _after_fatal_all_skipped(v)
    assert_still_grades(lj)


# --------------------------------------------------------------------------- CPU time

def test_cpu_limit_busy_loop(lj, cpu1_bundle):
    Status = _S()
    assert lj.grade(CORRECT, cpu1_bundle).status is Status.ACCEPTED  # the copy itself is sound
    started = time.monotonic()
    v = lj.grade(learner("x = 0\nwhile True:\n    x += 1"), cpu1_bundle)
    took = time.monotonic() - started
    assert v.status is Status.TIME_LIMIT_EXCEEDED, (v.status, v.message)
    assert "CPU" in v.message and "CPU" in (v.resources.killed_for or ""), (v.message, v.resources)
    assert v.resources.cpu_ms >= 950, v.resources
    assert took < 8, took  # killed by the CPU limit long before the 10 s per-call wall limit
    _after_fatal_all_skipped(v)


def test_cpu_limit_busy_threads(lj, cpu1_bundle):
    """Four busy threads (numpy releases the GIL) share one process CPU budget."""
    Status = _S()
    v = lj.grade(learner("""
        threading = __import__("threading")
        def spin():
            a = np.ones(1 << 16)
            while True:
                np.sin(a, out=a)
        ts = [threading.Thread(target=spin, daemon=True) for _ in range(4)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
    """), cpu1_bundle)
    assert v.status is Status.TIME_LIMIT_EXCEEDED, (v.status, v.message)
    assert "CPU" in v.message, v.message
    assert v.resources.forks_refused == 0  # 5 tasks fit in the process limit
    assert_still_grades(lj)


# --------------------------------------------------------------------------- memory

def test_touching_2gib_is_memory_limit(lj):
    Status = _S()
    v = lj.grade(learner("""
        a = np.ones(2 << 30 >> 3)  # 2 GiB of float64, every page touched
        print(a.sum())
    """), roomy_problem())
    assert v.status is Status.MEMORY_LIMIT_EXCEEDED, (v.status, v.message, v.resources)
    assert v.resources.oom_kills >= 1
    assert "memory" in v.message
    assert v.cases[0].status is Status.MEMORY_LIMIT_EXCEEDED
    _after_fatal_all_skipped(v)
    assert_still_grades(lj)


def test_catching_memoryerror_does_not_help(lj):
    Status = _S()
    v = lj.grade(learner("""
        hoard = []
        size = 600 << 20 >> 3
        while size >= 1024:
            try:
                hoard.append(np.ones(size))
            except MemoryError:
                size //= 2
        print("SURVIVED", len(hoard))
    """), roomy_problem())
    assert v.status is Status.MEMORY_LIMIT_EXCEEDED, (v.status, v.message, v.resources)
    assert v.resources.oom_kills >= 1
    assert "SURVIVED" not in v.stdout.text
    assert_still_grades(lj)


# --------------------------------------------------------------------------- processes

def test_fork_50_children_is_refused_and_cleaned_up(lj):
    Status = _S()
    v = lj.grade(learner(FORK_50), "sinusoidal-pe")
    assert v.status in (Status.WRONG_ANSWER, Status.RUNTIME_ERROR), (v.status, v.message)
    assert v.resources.forks_refused > 0, v.resources
    made = [line for line in v.stdout.text.splitlines() if line.startswith("MADE")]
    assert made and int(made[0].split()[1]) < 50 and int(made[0].split()[3]) > 0, made
    assert leftover_learner_processes(worker_name(v)) == []
    assert len(cgroup_pids(v)) == 1, cgroup_pids(v)
    assert_still_grades(lj)


# --------------------------------------------------------------------------- output

def test_50mb_of_output_is_capped(lj):
    Status = _S()
    v = lj.grade(learner("""
        sys = __import__("sys")
        chunk = "y" * (1 << 20)
        errors = 0
        for _ in range(50):
            try:
                print(chunk)
            except OSError:
                errors += 1
        try:
            sys.stderr.write("ERRORS %d\\n" % errors)
        except OSError:
            pass
    """), "sinusoidal-pe")
    assert v.status is not Status.INTERNAL_ERROR, v.message
    assert v.status is not Status.ACCEPTED
    assert v.stdout.bytes <= OUTPUT_LIMIT, v.stdout.bytes
    assert len(v.stdout.text) <= OUTPUT_KEEP + 64, len(v.stdout.text)
    assert v.stdout.truncated
    assert v.stdout.bytes > OUTPUT_KEEP
    assert_still_grades(lj)


# --------------------------------------------------------------------------- crashes

def test_abort_is_runtime_error_with_signal(lj):
    Status = _S()
    v = lj.grade(learner('__import__("o" + "s").abort()'), "sinusoidal-pe")
    assert v.status is Status.RUNTIME_ERROR, (v.status, v.message)
    assert v.resources.signal is not None and v.resources.exit_code is None, v.resources
    assert "the process was killed by SIG" in v.message
    assert "killed by SIG" in v.cases[0].message
    _after_fatal_all_skipped(v)
    assert_still_grades(lj)


def test_abort_is_reported_as_sigabrt(lj):
    """The learner is not the namespace's init, so abort() dies of SIGABRT as on any machine."""
    v = lj.grade(learner('__import__("o" + "s").abort()'), "sinusoidal-pe")
    assert v.resources.signal == 6, v.resources
    assert "SIGABRT" in v.message


def test_os_exit_before_returning(lj):
    Status = _S()
    v = lj.grade(learner('__import__("o" + "s")._exit(0)'), "sinusoidal-pe")
    assert v.status is Status.RUNTIME_ERROR, (v.status, v.message)
    assert v.resources.exit_code == 0
    assert "ended before this call returned" in v.cases[0].message
    _after_fatal_all_skipped(v)
    assert v.score == 0.0
    assert_still_grades(lj)


def test_fatal_case_later_in_the_run_skips_only_the_rest(lj):
    """A crash on the second case: the first stays judged (accepted), everything after is skipped."""
    Status = _S()
    src = CORRECT.replace("def sinusoidal_pe(max_len, d_model, base=10000.0):\n",
                          "def sinusoidal_pe(max_len, d_model, base=10000.0):\n"
                          "    if d_model == 5:\n        __import__('o' + 's')._exit(3)\n", 1)
    assert src != CORRECT
    v = lj.grade(src, "sinusoidal-pe")
    assert v.status is Status.RUNTIME_ERROR, (v.status, v.message)
    assert v.cases[0].status is Status.ACCEPTED
    assert v.cases[1].id == "ex-table-2x5" and v.cases[1].status is Status.RUNTIME_ERROR
    assert "code 3" in v.cases[1].message
    _after_fatal_all_skipped(v, first=1)


def test_exception_in_one_case_does_not_stop_the_others(lj):
    Status = _S()
    src = '''
import numpy as np


def _table(max_len, d_model, base):
    pe = np.zeros((max_len, d_model), dtype=np.float64)
    n = d_model // 2
    angles = np.arange(max_len, dtype=np.float64)[:, None] / np.power(float(base), 2.0 * np.arange(n) / d_model)
    pe[:, 0:2 * n:2] = np.sin(angles)
    pe[:, 1:2 * n:2] = np.cos(angles)
    return pe


def sinusoidal_pe(max_len, d_model, base=10000.0):
    if d_model % 2:
        raise ValueError("odd d_model not supported")
    return _table(max_len, d_model, base)


def add_positional_encoding(x, base=10000.0):
    x = np.asarray(x)
    return x + _table(x.shape[-2], x.shape[-1], base)
'''
    v = lj.grade(src, "sinusoidal-pe")
    by_id = {c.id: c for c in v.cases}
    assert v.status is Status.RUNTIME_ERROR
    assert by_id["ex-table-3x4"].status is Status.ACCEPTED
    assert by_id["ex-table-2x5"].status is Status.RUNTIME_ERROR
    assert "ValueError: odd d_model not supported" in by_id["ex-table-2x5"].message
    adds = [c for c in v.cases if c.function == "add_positional_encoding"]
    assert adds and all(c.status is Status.ACCEPTED for c in adds), [(c.id, c.status, c.message) for c in adds]
    assert not any(c.status is Status.SKIPPED for c in v.cases)
    odd = [c for c in v.cases if c.function == "sinusoidal_pe" and c.status is not Status.ACCEPTED]
    assert all(c.status is Status.RUNTIME_ERROR for c in odd)
    assert 0 < v.score < 1


def test_zygote_still_works_at_the_end(lj):
    assert_still_grades(lj)
