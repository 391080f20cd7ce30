"""Every folder of Python modules under judge/ is a package a wheel carries.

setuptools' ``find_packages`` (setup.py) leaves out a folder without ``__init__.py``: it still imports from a
checkout (a namespace package), so only an installed judge, a platform's image, finds it missing.  That is how
the exercism image once failed with "No module named 'judge.service.lti'"."""

from __future__ import annotations

from pathlib import Path

from setuptools import find_packages

REPO = Path(__file__).resolve().parents[1]


def test_every_folder_of_modules_is_a_package_the_wheel_carries():
    folders = {str(p.parent.relative_to(REPO)).replace("/", ".") for p in (REPO / "judge").rglob("*.py")
               if "__pycache__" not in p.parts}
    found = set(find_packages(str(REPO), include=["judge", "judge.*"]))
    assert folders <= found, f"folders of modules without __init__.py: {sorted(folders - found)}"
