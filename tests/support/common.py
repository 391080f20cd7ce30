"""What tests share that is not a fixture: the checkout's paths, the loud skip, and the machine checks a tier
hangs on (:func:`tests.support.tiers.needs`).  Imported as ``from tests.support.common import ...``; the fixtures
built on them are in tests/conftest.py."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support.tiers import needs

REPO = Path(__file__).resolve().parents[2]
PROBLEM_DIR = REPO / "problems" / "sinusoidal-pe"
SUBMISSIONS = REPO / "submissions" / "sinusoidal-pe"


def example_files(problem: str, folders: tuple[str, ...], suffixes: tuple[str, ...] = (".py",)) -> list[Path]:
    """A problem's example submissions in ``folders`` (in that order, each folder's sorted by name): the learners'
    files, not the red team's ``attack_*`` ones."""
    return [path for folder in folders for path in sorted((REPO / "submissions" / problem / folder).iterdir())
            if path.suffix in suffixes and not path.name.startswith("attack_")]


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


def clear_slot_headers(prepared, results) -> None:
    """Erase every slot header of ``results``, as the judge does before a run."""
    from judge.sandbox import wire

    for case in prepared.cases:
        results[case.slot_offset:case.slot_offset + wire.SLOT_HEADER_SIZE] = bytes(wire.SLOT_HEADER_SIZE)
