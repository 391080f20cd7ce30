"""Every folder of Python modules under judge/ is a package a wheel carries.

setuptools' ``find_packages`` (setup.py) leaves out a folder without ``__init__.py``: it still imports from a
checkout (a namespace package), so only an installed judge, a platform's image, finds it missing.  That is how
the exercism image once failed with "No module named 'judge.service.lti'"."""

from __future__ import annotations

from pathlib import Path

from setuptools import find_packages

REPO = Path(__file__).resolve().parents[3]


def test_every_folder_of_modules_is_a_package_the_wheel_carries():
    folders = {str(p.parent.relative_to(REPO)).replace("/", ".") for p in (REPO / "judge").rglob("*.py")
               if "__pycache__" not in p.parts}
    found = set(find_packages(str(REPO), include=["judge", "judge.*"]))
    assert folders <= found, f"folders of modules without __init__.py: {sorted(folders - found)}"


def test_every_service_table_is_defined_in_the_db_package():
    """The service's tables live in ``judge.service.db.schema``, which the migrations compare against: a table
    defined anywhere else would be missed by the data map and by the revisions' check."""
    import ast

    defining = set()
    for path in (REPO / "judge" / "service").rglob("*.py"):
        tree = ast.parse(path.read_text())
        if any(isinstance(n, ast.Call) and getattr(n.func, "id", None) == "Table" for n in ast.walk(tree)):
            defining.add(".".join(path.relative_to(REPO).with_suffix("").parts))
    assert defining <= {"judge.service.db.schema"}, f"tables defined outside judge.service.db: {defining}"


def test_the_wheel_carries_the_migrations():
    """Alembic reads the revisions from the installed package at every start: they must be in the wheel."""
    import tomllib

    config = tomllib.loads((REPO / "pyproject.toml").read_text())
    assert "judge.service.db.migrations.versions" in set(find_packages(str(REPO), include=["judge", "judge.*"]))
    assert "script.py.mako" in config["tool"]["setuptools"]["package-data"]["judge.service.db.migrations"]
