"""`check()` from a plain script, as the README shows it: the calling script's definitions are graded, without
its own `from judge import check` and `check(...)` lines and without its demo code, at the script's own line
numbers; whether the file is run by `python`, by IPython's `%run` (an IDE's console, Spyder's runfile) or by
`runpy` (an IDE's debugger launches files so).  In a kernel: tests/test_notebook_handout.py.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from judge.problem import locate
from tests.conftest import REPO, require_sandbox

SCRIPT = '''\
import numpy as np
from judge import check


def sinusoidal_pe(max_len, d_model, base=10000.0):
    half = d_model // 2
    pos = np.arange(max_len)[:, None]
    angle = pos / base ** (2 * np.arange(half) / d_model)
    table = np.zeros((max_len, d_model))
    table[:, 0:2 * half:2] = np.sin(angle)
    table[:, 1:2 * half:2] = np.cos(angle)
    return table


def add_positional_encoding(x, base=10000.0):
    return x + sinusoidal_pe(x.shape[-2], x.shape[-1], base)


print(sinusoidal_pe(3, 4))        # trying it out, as learners do
data = np.loadtxt("my_data.txt")  # a file the sandbox never sees: not needed by the functions, never run
check(%(problem)s)
'''


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
