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


def test_every_module_defining_a_service_table_is_imported_before_the_schema_is_made():
    """``Store.create_schema`` creates the tables that joined ``metadata``, i.e. those whose module was imported:
    it imports the modules it names first, and every module of the service that defines a table is named."""
    import ast

    from judge.service import store

    defining = set()
    for path in (REPO / "judge" / "service").rglob("*.py"):
        tree = ast.parse(path.read_text())
        if any(isinstance(n, ast.Call) and getattr(n.func, "id", None) == "Table" for n in ast.walk(tree)):
            defining.add(".".join(path.relative_to(REPO).with_suffix("").parts))
    named = set(store.TABLE_MODULES) | {"judge.service.store"}
    assert defining <= named, f"modules defining tables that create_schema does not import: {defining - named}"
