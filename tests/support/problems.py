"""Private copies of the repository's problems, for tests that change a bundle on disk (add a case, loosen a
tolerance, plant another reference) without touching the checkout's."""

from __future__ import annotations

import shutil
from pathlib import Path

import yaml

from tests.support.common import REPO


def problems_copy(folder: Path, *only: str, note: str | None = None) -> Path:
    """``folder`` (made here) holding a copy of problems/, or of the problems named ``only``.  ``note``: a
    comment appended to sinusoidal-pe's cases.yaml, a change an author makes that changes the bundle's digest."""
    ignore = shutil.ignore_patterns("__pycache__")
    if only:
        folder.mkdir(parents=True)
        for name in only:
            shutil.copytree(REPO / "problems" / name, folder / name, ignore=ignore)
    else:
        shutil.copytree(REPO / "problems", folder, ignore=ignore)
    if note:
        cases = folder / "sinusoidal-pe" / "cases.yaml"
        cases.write_text(cases.read_text() + f"\n# {note}\n")
    return folder


def _loosen(problems: Path) -> None:
    """What an author does when float32 work should pass: float32 outputs allowed and the tolerance of
    float32 arithmetic, in problem.yaml and on the case that had its own."""
    path = problems / "sinusoidal-pe" / "problem.yaml"
    spec = yaml.safe_load(path.read_text())
    spec["tolerance"] = {"atol": 1.0e-3, "rtol": 1.0e-3}
    for function in spec["functions"]:  # the float32 rules say the same
        function["output_dtypes"] = ["float64", "float32"]
        for rule in ((function.get("domain") or {}).get("dtypes") or {}).values():
            rule.get("tolerance", {}).update(atol=1.0e-3, rtol=1.0e-3)
    path.write_text(yaml.safe_dump(spec, sort_keys=False))
    cases_path = problems / "sinusoidal-pe" / "cases.yaml"  # and the float32 case's own tolerance
    cases = yaml.safe_load(cases_path.read_text())
    for case in cases["cases"]:
        if case.get("tolerance"):
            case["tolerance"] = {"atol": 1.0e-3, "rtol": 1.0e-3}
    cases_path.write_text(yaml.safe_dump(cases, sort_keys=False))


def edit_once(path: Path, old: str, new: str) -> None:
    """Replace the first ``old`` in ``path`` by ``new``; ``old`` must be there (an edit that silently matches
    nothing would test the unedited bundle)."""
    text = path.read_text()
    assert old in text, old
    path.write_text(text.replace(old, new, 1))


def line_of(path: Path, text: str) -> int:
    """The number of the first line of ``path`` holding ``text`` (where a bundle error must point)."""
    return next(k for k, line in enumerate(path.read_text().splitlines(), start=1) if text in line)


def load_error(root: Path) -> str:
    """The error loading the bundle at ``root`` gives (it must give one)."""
    import pytest

    from judge.errors import BundleError
    from judge.problem.loader import load_problem

    with pytest.raises(BundleError) as caught:
        load_problem(root)
    return str(caught.value)
