"""An author's typo is named where it is: an unknown key at its own line with the key it was probably meant to
be, every problem of a file listed (none hidden in "and 1 more"), a name in mistakes.yaml blamed on its line
there, and `judge case add` refusing a case whose dtypes the bundle does not accept."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from judge.authoring.case_add import add_case
from judge.errors import JudgeError
from tests.support.common import REPO
from tests.support.problems import line_of, load_error


@pytest.fixture()
def bundle(tmp_path) -> Path:
    root = tmp_path / "sinusoidal-pe"
    shutil.copytree(REPO / "problems" / "sinusoidal-pe", root, ignore=shutil.ignore_patterns("__pycache__"))
    return root


def test_a_misspelt_key_is_named_at_its_line_with_the_key_meant(bundle):
    spec = bundle / "problem.yaml"
    spec.write_text(spec.read_text().replace("\ntolerance:", "\ntolerence:", 1))
    error = load_error(bundle)
    assert error.startswith(f"{spec}:{line_of(spec, 'tolerence:')}: "), error
    assert "unknown key 'tolerence' (did you mean 'tolerance'?)" in error, error
    assert "Field required" not in error and "more problems" not in error, error


def test_every_problem_of_a_file_is_listed(bundle):
    spec = bundle / "problem.yaml"
    text = spec.read_text().replace("\ntolerance:", "\ntolerence:", 1).replace("  cpu_seconds:", "  cpu_secnds:", 1)
    spec.write_text(text)
    error = load_error(bundle)
    lines = error.splitlines()
    assert len(lines) == 2, error
    assert lines[0].startswith(f"{spec}:{line_of(spec, 'cpu_secnds:')}: limits.cpu_secnds: unknown key"), error
    assert "did you mean 'cpu_seconds'?" in lines[0]
    assert lines[1].startswith(f"{spec}:{line_of(spec, 'tolerence:')}: "), error


def test_a_misspelt_name_in_mistakes_yaml_is_blamed_on_its_line_there(bundle):
    bank = bundle / "mistakes.yaml"
    bank.write_text(bank.read_text().replace("sinusoidal_pe: swapped_pe,", "sinusoidal_pe: swaped_pe,", 1))
    error = load_error(bundle)
    assert error.startswith(f"{bank}:{line_of(bank, 'swaped_pe')}: "), error
    assert "swaped_pe() is not defined in mistakes.py (did you mean 'swapped_pe'?)" in error, error


def test_case_add_refuses_dtypes_the_bundle_does_not_accept(bundle, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    cases = bundle / "cases.yaml"
    before = cases.read_text()
    with pytest.raises(JudgeError) as outside:  # the domain allows float64 and float32 for x
        add_case(str(bundle), "add_positional_encoding", {"x": {"generate": {"shape": [3, 4], "dtype": "float16"}}})
    assert "x is float16" in str(outside.value) and "domain" in str(outside.value)
    reference = bundle / "reference.py"  # a reference that keeps float32 where output_dtypes says float64
    reference.write_text(reference.read_text() + "\n\ndef keeps(x, base=10000.0):\n    return x\n")
    spec = bundle / "problem.yaml"
    spec.write_text(spec.read_text().replace("float32: {output_dtypes: [float64, float32], tolerance: "
                                             "{atol: 1.0e-6, rtol: 1.0e-6}}", "float16: {}"))
    text = reference.read_text().replace("def add_positional_encoding(", "def _unused(", 1)
    reference.write_text(text.replace("def keeps(", "def add_positional_encoding("))
    with pytest.raises(JudgeError) as kept:
        add_case(str(bundle), "add_positional_encoding",
                 {"x": {"generate": {"shape": [3, 4], "dtype": "float32", "seed": 1}}})
    assert "the reference returns float32 on it, but the case accepts only float64" in str(kept.value)
    assert cases.read_text() == before
