"""The tests' own layout, checked: a newcomer finds each helper and fixture in one place.

A test module that imports another makes the imported one a library nobody knows is one (moving or renaming it
breaks a stranger), and a fixture defined twice under one name drifts apart while readers take one for the
other.  So shared code lives in tests/support/ (imported as ``tests.support.<module>``) and a shared fixture in
the nearest conftest.py.  Read from the files' syntax, nothing imported."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

TESTS = Path(__file__).resolve().parents[2]


def _modules() -> dict[Path, ast.Module]:
    return {p: ast.parse(p.read_text(), str(p)) for p in sorted(TESTS.rglob("*.py")) if "__pycache__" not in p.parts}


def _imported(tree: ast.Module) -> list[tuple[int, str]]:
    """Every module an import statement names (anywhere in the file, local imports included), with its line."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.append((node.lineno, node.module))
            found += [(node.lineno, f"{node.module}.{alias.name}") for alias in node.names]
    return found


def _fixture_names(tree: ast.Module) -> list[tuple[int, str]]:
    """The fixtures a module defines at its top level: their ``name=`` if given, else the function's name."""
    names = []
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for deco in node.decorator_list:
            call = deco if isinstance(deco, ast.Call) else None
            target = call.func if call else deco
            if ast.unparse(target) in ("pytest.fixture", "fixture"):
                named = [k.value.value for k in (call.keywords if call else [])
                         if k.arg == "name" and isinstance(k.value, ast.Constant)]
                names.append((node.lineno, named[0] if named else node.name))
    return names


def test_no_test_module_imports_another():
    modules = _modules()
    test_names = {p.stem for p in modules if p.stem.startswith("test_")}
    wrong = [f"{p.relative_to(TESTS.parent)}:{line}: imports {name}"
             for p, tree in modules.items() for line, name in _imported(tree)
             if name.split(".")[-1] in test_names and (name.startswith("tests.") or "." not in name)]
    assert not wrong, "a test module imports another: move what they share to tests/support/ or a conftest.py\n" + \
        "\n".join(wrong)


def test_helpers_are_imported_one_way():
    """As ``tests.support.<module>``: never by a bare name (pytest's sys.path insertion made a second copy of
    the module that way), and never from a conftest.py (pytest loads those itself)."""
    modules = _modules()
    local = {p.stem for p in modules}
    wrong = [f"{p.relative_to(TESTS.parent)}:{line}: imports {name}"
             for p, tree in modules.items() for line, name in _imported(tree)
             if name.split(".")[0] in local or (name.startswith("tests.") and not name.startswith("tests.support."))]
    assert not wrong, "import helpers as tests.support.<module>:\n" + "\n".join(wrong)


def test_no_fixture_name_is_defined_twice():
    where: dict[str, list[str]] = defaultdict(list)
    for p, tree in _modules().items():
        for line, name in _fixture_names(tree):
            where[name].append(f"{p.relative_to(TESTS.parent)}:{line}")
    twice = {name: places for name, places in where.items() if len(places) > 1}
    assert not twice, "fixtures defined more than once (keep one, in the nearest conftest.py of its users, or " \
        "give different fixtures different names):\n" + "\n".join(f"{n}: {', '.join(p)}" for n, p in twice.items())


def test_the_checks_see_what_they_look_for():
    """The three checks above read the syntax: they must recognise what they forbid."""
    tree = ast.parse("import pytest\nfrom tests.service.test_x import y\n\n\n@pytest.fixture(scope='module', "
                     "name='srv')\ndef _server():\n    from test_y import z\n\n\n@pytest.fixture\ndef store():\n"
                     "    pass\n")
    assert ("tests.service.test_x" in [n for _, n in _imported(tree)]
            and "test_y" in [n for _, n in _imported(tree)])
    assert [n for _, n in _fixture_names(tree)] == ["srv", "store"]
