"""`check()` from a plain script, as the README shows it: the calling script's definitions are graded, without
its own `from judge import check` and `check(...)` lines and without its demo code, at the script's own line
numbers; whether the file is run by `python`, by IPython's `%run` (an IDE's console, Spyder's runfile) or by
`runpy` (an IDE's debugger launches files so).  In a kernel: tests/notebooks/test_notebook_handout.py.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from judge.problem import locate
from tests.support.common import REPO, require_sandbox
from tests.support.sources import SCRIPT


def _run(folder: Path, *command: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != locate.ENV}
    env.update(PYTHONPATH=str(REPO))
    return subprocess.run(list(command), cwd=folder, env=env, capture_output=True, text=True, timeout=300)


@pytest.fixture()
def script(tmp_path):
    (tmp_path / "my_data.txt").write_text("1 2 3\n")
    return tmp_path


@pytest.mark.parametrize("how", ["python", "runpy", "ipython-run"])
def test_a_script_that_calls_check_is_graded_without_its_check(script, how):
    require_sandbox()
    (script / "pe.py").write_text(SCRIPT % {"problem": '"sinusoidal-pe"'})
    command = {"python": [sys.executable, "pe.py"],
               "runpy": [sys.executable, "-c", "import runpy; runpy.run_path('pe.py', run_name='__main__')"],
               "ipython-run": [sys.executable, "-m", "IPython", "--no-banner", "--quick", "-c", "%run pe.py"]}[how]
    done = _run(script, *command)
    out = done.stdout + done.stderr
    assert done.returncode == 0, out
    assert "compile error" not in out and "is not allowed" not in out, out
    assert "sinusoidal-pe: accepted" in out, out
    assert "public cases: 4 of 4 passed" in out, out


def test_a_scripts_mistake_is_named_at_its_own_line_and_the_problem_found_by_itself(script):
    require_sandbox()
    wrong = (SCRIPT % {"problem": ""}).replace("    half = d_model // 2",
                                                  "    assert d_model % 2 == 0, 'even only'\n    half = d_model // 2")
    (script / "pe.py").write_text(wrong)
    done = _run(script, sys.executable, "pe.py")
    out = done.stdout + done.stderr
    assert "sinusoidal-pe: runtime error" in out, out
    line = wrong.splitlines().index("    assert d_model % 2 == 0, 'even only'") + 1
    assert f"line {line}, in sinusoidal_pe" in out and f'File "submission.py", line {line}' in out, out
