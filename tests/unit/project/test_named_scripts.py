"""Every script the README or a docstring tells people to run starts as written, from the checkout.

The names are read from the texts themselves (``python3 bench/load_service.py``, ``python -m judge.platforms``),
so a script named tomorrow is checked tomorrow; each runs with ``--help`` from the repository's root, with the
checkout importable as an editable install makes it, and must answer with its usage (exit 0; 1 or 2 for the
scripts that parse their arguments by hand), never an import error.  (``python3 bench/load_service.py`` stopped
at once with ``ModuleNotFoundError: tiers``.)
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.common import REPO

_SCRIPT = re.compile(r"\bpython3?(?:\.\d+)? +((?:bench|tests|judge|deploy)/[\w/.-]+\.py)\b")
_MODULE = re.compile(r"\bpython3?(?:\.\d+)? +-m +(judge[\w.]*)")


def _texts() -> list[Path]:
    found = [REPO / "README.md"]
    for folder in ("judge", "bench", "tests"):
        found += sorted((REPO / folder).rglob("*.py"))
    return found


def named() -> list[tuple[str, ...]]:
    """Every ``python3 PATH.py`` and ``python -m judge...`` the README and the sources name, once each."""
    commands: dict[tuple[str, ...], None] = {}
    for path in _texts():
        text = path.read_text(encoding="utf-8", errors="replace")
        for script in _SCRIPT.findall(text):
            if (REPO / script).is_file():
                commands[(script,)] = None
        for module in _MODULE.findall(text):
            commands[("-m", module.rstrip("."))] = None
    return sorted(commands)


def test_the_texts_name_the_scripts_this_test_runs():
    found = named()
    assert ("bench/load_service.py",) in found and ("bench/bench.py",) in found, found
    assert ("-m", "judge.platforms") in found, found


@pytest.mark.parametrize("command", named(), ids=" ".join)
def test_each_named_script_starts_as_written(command):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH",)}
    env["PYTHONPATH"] = str(REPO)  # what `pip install -e .` gives a checkout; nothing of tests/ on the path
    done = subprocess.run([sys.executable, *command, "--help"], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=120)
    out = done.stdout + done.stderr
    assert "Traceback" not in out and "Error" not in out.split("usage")[0], out[-3000:]
    assert done.returncode in (0, 1, 2) and "usage" in out.lower(), (done.returncode, out[-3000:])
