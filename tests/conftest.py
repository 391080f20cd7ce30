"""Shared test helpers.  Tests use the real sandbox; where the machine cannot
isolate they skip with a loud reason outside CI and fail inside CI."""

from __future__ import annotations

import mmap
import os
from pathlib import Path

import pytest
from tiers import TIERS, VM, derive, needs

REPO = Path(__file__).resolve().parents[1]
PROBLEM_DIR = REPO / "problems" / "sinusoidal-pe"
SUBMISSIONS = REPO / "submissions" / "sinusoidal-pe"


def unavailable(message: str) -> None:
    """A test that cannot run here: skip with a loud reason, or fail under CI=true, where
    .ci/run installs and starts everything the tests need."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI=true but {message}")
    pytest.skip(message)


@needs("container", only_for="container")
def require_docker(*images: str, what: str = "CONTAINER TESTS"):
    """A Docker client whose engine answers and holds ``images``; skip (or fail under CI) otherwise."""
    def missing(message: str) -> None:
        unavailable(f"DOCKER UNAVAILABLE, {what} NOT RUN: {message} (start one with .ci/docker.sh build)")

    try:
        import docker

        client = docker.from_env(timeout=30)
        client.ping()
    except Exception as exc:  # noqa: BLE001 - any failure means no usable engine
        missing(f"no Docker engine answers: {exc}")
    for image in images:
        try:
            client.images.get(image)
        except Exception as exc:  # noqa: BLE001
            client.close()
            missing(f"image {image} is missing: {exc}")
    return client


@needs("sandbox")
def require_sandbox() -> None:
    """Skip (or fail under CI=true) when this machine cannot run the isolated sandbox."""
    from judge.errors import SandboxUnavailable
    from judge.sandbox.modes.capabilities import choose_isolation

    try:
        choose_isolation(False)
    except SandboxUnavailable as exc:
        unavailable(f"SANDBOX UNAVAILABLE, TEST NOT RUN: {exc}")


@pytest.fixture(scope="session")
def judge():
    require_sandbox()
    from judge import Judge

    with Judge() as j:
        yield j


_ROOMY: list[Path] = []


def roomy_problem() -> Path:
    """sinusoidal-pe with 30 s per call and 60 s in all, for tests whose verdict is about memory.

    On this project's VMs the host backs guest memory lazily and takes back what the guest frees (free page
    reporting), so touching memory the guest has not used lately cost 6-14 ms per MiB (measured): reaching the
    bundle's 512 MiB limit could take longer than its 4 s per call, and the verdict was honestly a time limit.
    These tests are about which limit the kernel's records show, so they give wall time enough room; the
    memory limit is the bundle's own."""
    if not _ROOMY:
        import shutil
        import tempfile

        import yaml

        root = Path(tempfile.mkdtemp(prefix="judge-roomy-")) / "sinusoidal-pe"
        shutil.copytree(PROBLEM_DIR, root, ignore=shutil.ignore_patterns("__pycache__"))
        spec = yaml.safe_load((root / "problem.yaml").read_text())
        spec["limits"].update(case_wall_seconds=30, wall_seconds=60)
        (root / "problem.yaml").write_text(yaml.safe_dump(spec, sort_keys=False))
        _ROOMY.append(root)
    return _ROOMY[0]


def submission(status: str, name: str) -> bytes:
    return (SUBMISSIONS / status / name).read_bytes()


@pytest.fixture(scope="module")
def prepared():
    """The sinusoidal-pe bundle prepared in this process (inputs laid out, expected outputs loaded), for tests
    that write result slots by hand (tests/test_fuzz.py, tests/test_case_judging.py)."""
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


def clear_slot_headers(prepared, results) -> None:
    """Erase every slot header of ``results``, as the judge does before a run."""
    from judge.sandbox.boundary import wire

    for case in prepared.cases:
        results[case.slot_offset:case.slot_offset + wire.SLOT_HEADER_SIZE] = bytes(wire.SLOT_HEADER_SIZE)


def pytest_collection_modifyitems(config, items):
    """Give each test the tier what it uses makes it (tests/tiers.py); a hand-set tier that disagrees fails."""
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
                                "(drop the marker; tests/tiers.py derives it):\n" + "\n".join(wrong))
