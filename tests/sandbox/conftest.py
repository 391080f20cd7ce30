"""Fixtures the sandbox tests share."""

from __future__ import annotations

import shutil

import pytest
import yaml

from tests.support.common import PROBLEM_DIR


@pytest.fixture(scope="module")
def cpu1_bundle(tmp_path_factory):
    """A copy of sinusoidal-pe with cpu_seconds 1 and generous wall limits."""
    root = tmp_path_factory.mktemp("bundles") / "sinusoidal-pe"
    shutil.copytree(PROBLEM_DIR, root)
    spec = yaml.safe_load((root / "problem.yaml").read_text())
    spec["limits"].update(cpu_seconds=1, case_wall_seconds=10, wall_seconds=20)
    (root / "problem.yaml").write_text(yaml.safe_dump(spec, sort_keys=False))
    return str(root)
