"""The maps stay true: ARCHITECTURE.md and the README's "Where things are" table against the code.

A map that drifts is worse than none: a newcomer trusts it.  So ARCHITECTURE.md names every module of the
sandbox and the service (a module added without its line fails here), every path or dotted name it gives
exists, and its layer table and the README's table say what ``tests/unit/project/test_layout.py`` enforces.  The
layers are read from test_layout.py's source (its ``LAYERS`` literal), not imported: a test module imports no other.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
PACKAGE = REPO / "judge"
ARCHITECTURE = REPO / "ARCHITECTURE.md"
README = REPO / "README.md"
#: The folders whose every module has a line in ARCHITECTURE.md.
MAPPED = ("judge/sandbox", "judge/service")

_PATH = re.compile(r"(?<![\w/.])judge/(?:[A-Za-z0-9_]+/)*(?:[A-Za-z0-9_]+\.py|[A-Za-z0-9_]+/)")
#: A module or a name in one, written whole in backticks: `judge`, `judge.sandbox.wire`, `judge.engine.Judge`.
_DOTTED = re.compile(r"`(judge(?:\.[A-Za-z_][A-Za-z0-9_]*)*)`")


def _layers() -> list[tuple[str, ...]]:
    for node in ast.parse((REPO / "tests" / "unit" / "project" / "test_layout.py").read_text()).body:
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == ["LAYERS"]:
            return [tuple(layer) for layer in ast.literal_eval(node.value)]
    raise AssertionError("tests/unit/project/test_layout.py has no LAYERS list")


def _layer(module: str, layers: list[tuple[str, ...]]) -> int:
    """As test_layout decides it: the layer of the longest name that is the module or a package above it."""
    found = [(len(prefix), index) for index, prefixes in enumerate(layers) for prefix in prefixes
             if module == prefix or module.startswith(prefix + ".")]
    assert found, f"{module} is in no layer of tests/unit/project/test_layout.py"
    return max(found)[1]


def _module_of(path: str) -> str:
    """``judge/sandbox/chain/zygote.py`` -> ``judge.sandbox.chain.zygote``; ``judge/service/`` -> ``judge.service``."""
    parts = path.rstrip("/").removesuffix(".py").split("/")
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _resolve(dotted: str) -> tuple[Path, list[str]] | None:
    """The module file of the longest prefix of ``dotted`` that is a module, and the names after it."""
    parts = dotted.split(".")
    for end in range(len(parts), 0, -1):
        base = REPO.joinpath(*parts[:end])
        for candidate in (base.with_suffix(".py"), base / "__init__.py"):
            if candidate.is_file():
                return candidate, parts[end:]
    return None


def _top_level_names(path: Path) -> set[str]:
    names = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(t.id for target in targets for t in ast.walk(target) if isinstance(t, ast.Name))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
    return names


def _table_rows(text: str, heading: str) -> list[list[str]]:
    """The cells of the first table under ``heading`` (a line of its own), header and rule left out."""
    lines = text.splitlines()
    assert heading in lines, f"no {heading!r} section"
    rows, started = [], False
    for line in lines[lines.index(heading) + 1:]:
        if line.startswith("|"):
            started = True
            rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
        elif started:
            break
    assert len(rows) > 2, f"no table under {heading!r}"
    return rows[2:]


def test_every_module_of_the_sandbox_and_the_service_has_a_line():
    named = set(_PATH.findall(ARCHITECTURE.read_text()))
    modules = sorted(str(p.relative_to(REPO)) for folder in MAPPED for p in (REPO / folder).rglob("*.py")
                     if p.name != "__init__.py")
    assert modules, MAPPED
    missing = [m for m in modules if m not in named]
    assert missing == [], "modules ARCHITECTURE.md does not name (add a line for each): " + ", ".join(missing)


def test_every_path_and_module_the_architecture_names_exists():
    text = ARCHITECTURE.read_text()
    gone = [p for p in sorted(set(_PATH.findall(text))) if not (REPO / p).exists()]
    for dotted in sorted(set(_DOTTED.findall(text))):
        found = _resolve(dotted)
        if found is None:
            gone.append(dotted)
        elif found[1] and found[1][0] not in _top_level_names(found[0]):
            gone.append(f"{dotted} ({found[1][0]} is not defined in {found[0].relative_to(REPO)})")
    assert gone == [], "ARCHITECTURE.md names what the code does not have: " + ", ".join(gone)


def test_the_architecture_gives_the_layers_test_layout_enforces():
    layers = _layers()
    rows = _table_rows(ARCHITECTURE.read_text(), "## The layers")
    assert [int(row[0]) for row in rows] == list(range(len(layers))), "one row per layer, lowest first"
    for number, row in enumerate(rows):
        named = set(_DOTTED.findall(row[1]))
        assert set(layers[number]) <= named, (number, sorted(set(layers[number]) - named))
        wrong = sorted(m for m in named if _layer(m, layers) != number)
        assert wrong == [], f"layer {number} lists modules of other layers: {wrong}"


def test_the_readme_map_lists_the_layers_top_down_as_test_layout_has_them():
    """The README's table says imports point down it: its rows must go from the highest layer to the lowest."""
    layers = _layers()
    rows = _table_rows(README.read_text(), "## Where things are")
    seen = []
    for row in rows:
        paths = _PATH.findall(row[1])
        assert paths, f"a row without a judge/ path: {row[1]}"
        for path in paths:
            assert (REPO / path).exists(), path
            actual = _layer(_module_of(path), layers)
            assert actual == int(row[0]), f"{path} is in layer {actual}, the README says {row[0]}"
        seen.append(int(row[0]))
    assert seen == sorted(seen, reverse=True), f"the README's rows are not top-down: layers {seen}"
    assert set(seen) == set(range(len(layers))), f"layers missing from the README's table: {seen}"
