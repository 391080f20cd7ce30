"""Shared test fixtures, and each test's tier (derived at collection: tests/support/tiers.py).  Tests use the
real sandbox; where the machine cannot isolate they skip with a loud reason outside CI and fail inside CI.
Helpers that are not fixtures live in tests/support/ (imported as ``tests.support.<module>``)."""

from __future__ import annotations

import mmap

import pytest

from tests.support.common import PROBLEM_DIR, require_docker, require_sandbox
from tests.support.tiers import TIERS, VM, derive


@pytest.fixture(scope="session")
def judge():
    require_sandbox()
    from judge import Judge

    with Judge() as j:
        yield j


@pytest.fixture(scope="module")
def pj():
    """A judge of the module's own: its workers and caches start fresh with the module."""
    require_sandbox()
    from judge import Judge

    with Judge() as j:
        yield j


@pytest.fixture(scope="module")
def engine(request):
    """A Docker client whose engine holds the module's ``ENGINE_IMAGES``; skip (or fail under CI) otherwise."""
    client = require_docker(*request.module.ENGINE_IMAGES,
                            what=getattr(request.module, "ENGINE_WHAT", "CONTAINER TESTS"))
    yield client
    client.close()


@pytest.fixture(scope="module")
def prepared():
    """The sinusoidal-pe bundle prepared in this process (inputs laid out, expected outputs loaded), for tests
    that write result slots by hand (tests/unit/problem/test_fuzz.py, tests/unit/grading/test_case_judging.py)."""
    from judge.grading.prepare import prepare
    from judge.problem.loader import load_problem

    p = prepare(load_problem(PROBLEM_DIR))
    yield p
    p.close()


@pytest.fixture(scope="module")
def results(prepared):
    """A private mapping the size of ``prepared``'s result buffer, to write slots into by hand."""
    m = mmap.mmap(-1, prepared.result_size)
    yield m
    m.close()


def pytest_collection_modifyitems(config, items):
    """Give each test the tier what it uses makes it (tests/support/tiers.py); a hand-set tier that disagrees fails."""
    wrong = []
    for item in items:
        function = getattr(item, "function", None)
        if function is None:
            continue
        hand = {m.name for m in item.iter_markers() if m.name in (*TIERS, VM)}
        if VM in hand:  # runs inside the VM only: no host tier
            continue
        fixtures = [defs[-1].func for defs in item._fixtureinfo.name2fixturedefs.values() if defs]
        tier = derive(function, fixtures, getattr(getattr(item, "callspec", None), "params", None))
        if hand and hand != {tier}:
            wrong.append(f"{item.nodeid}: marked {', '.join(sorted(hand))}, but what it uses makes it {tier}")
        item.add_marker(getattr(pytest.mark, tier))
    if wrong:
        raise pytest.UsageError("tiers set by hand that disagree with what the tests use "
                                "(drop the marker; tests/support/tiers.py derives it):\n" + "\n".join(wrong))
