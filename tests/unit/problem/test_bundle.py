"""The bundle loader: the real bundle loads; broken ones fail with file, line and reason."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
import yaml

from judge.errors import BundleError
from judge.problem.loader import load_problem
from tests.support.common import PROBLEM_DIR
from tests.support.problems import edit_once


def copy_bundle(tmp_path: Path) -> Path:
    target = tmp_path / "sinusoidal-pe"
    shutil.copytree(PROBLEM_DIR, target)
    return target


def test_real_bundle_covers_the_required_cases():
    bundle = load_problem("sinusoidal-pe")
    cases = bundle.cases.cases
    by_fn = lambda fn: [c for c in cases if c.function == fn]  # noqa: E731
    tables = [c.args for c in by_fn("sinusoidal_pe")]
    assert {(a["max_len"], a["d_model"]) for a in tables} >= {(3, 4), (2, 5), (1, 1), (8192, 1024)}
    assert any(a["d_model"] % 2 == 1 and a["d_model"] > 1 for a in tables)
    assert any(a.get("base", 10000.0) != 10000.0 for a in tables)
    adds = [c for c in by_fn("add_positional_encoding")]
    ndims = set()
    for c in adds:
        x = c.args["x"]
        ndims.add(len(x.generate.shape) if x.generate else np.asarray(x.literal).ndim)
    assert {2, 3, 5} <= ndims, "x with 0, 1 and 3 leading axes"
    assert any(c.args["x"].generate and c.args["x"].generate.dtype == "float32" for c in adds)
    assert any(c.args["x"].layout == "strided" for c in adds)
    assert any(c.args["x"].readonly for c in adds)
    assert [c.visibility for c in cases[:3]] == ["public"] * 3


@pytest.mark.parametrize(
    "file,old,new,line,words",
    [
        ("problem.yaml", "memory_mib: 512", "memory_mib: lots", 48, "memory_mib"),
        ("problem.yaml", "id: sinusoidal-pe", "id: Sinusoidal PE!", 4, "id"),
        ("cases.yaml", "args: {max_len: 1, d_model: 7}", "args: {max_len: 1, d_modle: 7}", 16, "no parameter d_modle"),
        (
            "cases.yaml",
            'function: sinusoidal_pe, description: "max_len 1"',
            'function: sinusoidal_p, description: "max_len 1"',
            16,
            "unknown function",
        ),
        ("cases.yaml", "seed: 3}", "seed: 3, shape_: 1}", 38, "shape_"),
        ("cases.yaml", "- {id: table-1x7", "- {id: table-1x1", 16, "used twice"),
        ("cases.yaml", "cases:\n", "cases:\n  - [unclosed\n", 5, "invalid YAML"),
    ],
)
def test_broken_bundle_names_file_line_and_problem(tmp_path, file, old, new, line, words):
    root = copy_bundle(tmp_path)
    edit_once(root / file, old, new)
    with pytest.raises(BundleError) as info:
        load_problem(root)
    err = info.value
    assert err.file.endswith(file)
    assert words in err.message
    assert err.line is not None and abs(err.line - line) <= 2, str(err)


def test_missing_and_non_utf8_files(tmp_path):
    root = copy_bundle(tmp_path)
    (root / "statement.md").unlink()
    with pytest.raises(BundleError, match="statement.md: file not found"):
        load_problem(root)
    root2 = copy_bundle(tmp_path / "b")
    (root2 / "cases.yaml").write_bytes(b"schema_version: 1\ncases: \xff\xfe\n")
    with pytest.raises(BundleError, match="not UTF-8"):
        load_problem(root2)


def test_unknown_problem_lists_known_ones():
    with pytest.raises(BundleError, match="unknown problem.*sinusoidal-pe"):
        load_problem("no-such-problem")


def test_reference_that_raises_is_a_bundle_error(tmp_path):
    from judge.grading.prepare import prepare

    root = copy_bundle(tmp_path)
    (root / "reference.py").write_text("def sinusoidal_pe(max_len, d_model, base=1.0):\n    raise ValueError('x')\n"
                                       "def add_positional_encoding(x, base=1.0):\n    return x\n")
    with pytest.raises(BundleError, match="reference raised ValueError"):
        prepare(load_problem(root))


def test_digest_changes_with_any_file(tmp_path):
    root = copy_bundle(tmp_path)
    before = load_problem(root).digest
    data = yaml.safe_load((root / "problem.yaml").read_text())
    data["tolerance"]["atol"] = 1e-8
    (root / "problem.yaml").write_text(yaml.safe_dump(data))
    assert load_problem(root).digest != before
