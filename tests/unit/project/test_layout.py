"""The package's shape, checked: the pipeline in layers, no import circles, no import that runs upward, and the
isolation mode's name compared nowhere but in the mode classes.

Layers, lowest first (a module may import its own layer and those below; imports under ``TYPE_CHECKING``
are type hints, never run, and are not counted):

0. the verdict's vocabulary at the bottom: ``_version``, ``errors``, ``isolation_record``, ``feedback``, ``i18n``
   (the judge's messages as ids, their catalogs);
1. ``sandbox``: runs learner code; knows nothing of problems, grading or verdicts (it is given paths to hide);
2. ``notebooks``: a learner's notebook as the one file that is graded (standard library only);
3. ``problem``: bundles (models, loading, cases, the reference's outputs);
4. ``verdict``: the verdict's models, and ``i18n.localize`` (a verdict's texts rendered in a language);
5. ``grading``: the pipeline's middle, one verb a module;
6. ``diagnosis``: what went wrong;
7. ``engine``: the orchestrator;
8. ``formats``: the verdict written out (``--format``);
9. ``authoring``: ``judge verify``, ``judge new``, ``judge case add``;
10. the doors: the package itself, ``cli``, ``entry``, ``oneshot``, ``platforms``, ``service``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[3] / "judge"
LAYERS = [
    ("judge._version", "judge.errors", "judge.isolation_record", "judge.feedback", "judge.i18n"),
    ("judge.sandbox",),
    ("judge.notebooks",),
    ("judge.problem",),
    ("judge.verdict", "judge.i18n.localize"),
    ("judge.grading",),
    ("judge.diagnosis",),
    ("judge.engine",),
    ("judge.formats",),
    ("judge.authoring",),
    ("judge", "judge.__main__", "judge.cli", "judge.entry", "judge.oneshot", "judge.platforms", "judge.service"),
]


def _modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


def _layer(module: str) -> int:
    best, depth = None, -1
    for index, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > depth:
                best, depth = index, len(prefix)
    assert best is not None, f"{module} is in no layer: add it to LAYERS"
    return best


def _imports(path: Path, modules: dict[str, Path], type_hints: bool = False) -> set[str]:
    """The judge modules ``path`` imports when it runs (anywhere in it, but not under TYPE_CHECKING unless
    ``type_hints``)."""
    tree = ast.parse(path.read_text())
    typing_only = set()
    for node in ast.walk(tree):
        if (not type_hints and isinstance(node, ast.If)
                and getattr(node.test, "id", getattr(node.test, "attr", "")) == "TYPE_CHECKING"):
            typing_only.update(id(n) for n in ast.walk(node))

    def resolve(name: str) -> str | None:
        while name and name not in modules:
            name = name.rsplit(".", 1)[0] if "." in name else ""
        return name or None

    found = set()
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").split(".")[0] == "judge":
            for alias in node.names:
                target = resolve(f"{node.module}.{alias.name}") or resolve(node.module)
                found.add(target)
        elif isinstance(node, ast.Import):
            found.update(resolve(a.name) for a in node.names if a.name.split(".")[0] == "judge")
    return {m for m in found if m}


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imports(path, modules) - {name} for name, path in modules.items()}


def test_every_module_imports_only_its_own_layer_and_those_below(graph):
    upward = sorted(f"{m} (layer {_layer(m)}) imports {t} (layer {_layer(t)})"
                    for m, targets in graph.items() for t in targets
                    if _layer(t) > _layer(m) and not (m == "judge" or t.startswith(m + ".")))
    assert upward == [], "\n".join(upward)


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for v in graph:
        if v not in index:
            visit(v)
    return circles


def test_no_import_circles(graph):
    assert _circles(graph) == [], _circles(graph)


SANDBOX = "judge.sandbox"


def _in_sandbox(module: str) -> bool:
    return module == SANDBOX or module.startswith(SANDBOX + ".")


def test_no_circle_inside_the_sandbox_type_hints_included():
    """Its rooms read in one direction: a hint that points back (a mode's hook naming the zygote's class, the
    supervisor's policy naming the mode) is still a circle a reader must hold in mind, so hints count here."""
    modules = _modules()
    graph = {name: {t for t in _imports(path, modules, type_hints=True) if _in_sandbox(t)} - {name}
             for name, path in modules.items() if _in_sandbox(name)}
    assert _circles(graph) == [], _circles(graph)


#: The sandbox's lower rooms, and what each may import of the sandbox besides itself (hints included).
SANDBOX_FLOORS = {"judge.sandbox.boundary": (), "judge.sandbox.kernel": ("judge.sandbox.boundary",)}


def test_the_sandbox_lower_rooms_import_only_below_them():
    """What crosses the boundary is read from both ends, so it depends on nothing else of the sandbox; a kernel
    mechanism is wrapped without policy, so it knows the boundary's records and no process or mode that uses it.
    The chain, the modes and the backends above them use one another (the chain calls the modes' hooks)."""
    modules = _modules()
    wrong = []
    for name, path in modules.items():
        for floor, allowed in SANDBOX_FLOORS.items():
            if name == floor or name.startswith(floor + "."):
                wrong.extend(f"{name} imports {t}" for t in sorted(_imports(path, modules, type_hints=True))
                             if _in_sandbox(t) and not any(t == r or t.startswith(r + ".")
                                                           for r in (floor, *allowed)))
    assert wrong == [], "\n".join(wrong)


def test_nothing_outside_the_sandbox_imports_its_internals():
    """The sandbox has one face, ``judge.sandbox`` and the names of its ``__all__``: the rest of the judge
    imports nothing else of it (type hints and imports inside functions included), so its rooms can be
    rearranged behind the face without touching the judge.  Inside the sandbox, modules import each other
    by room and never the face (that would be a circle: the face's hints import them all)."""
    import judge.sandbox

    face = set(judge.sandbox.__all__)
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        inside = parts[:2] == ("judge", "sandbox")
        for node in ast.walk(ast.parse(path.read_text())):
            where = f"{path.relative_to(PACKAGE.parent)}:{getattr(node, 'lineno', 0)}"
            if isinstance(node, ast.ImportFrom) and node.level == 0 and _in_sandbox(node.module or ""):
                if inside and node.module == SANDBOX:
                    offenders.append(f"{where}: imports the face from inside the sandbox")
                elif not inside and node.module != SANDBOX:
                    offenders.append(f"{where}: from {node.module} import ...")
                elif not inside:
                    offenders.extend(f"{where}: {a.name} is not in judge.sandbox.__all__" for a in node.names
                                     if a.name not in face)
            elif isinstance(node, ast.Import) and not inside:
                offenders.extend(f"{where}: import {a.name}" for a in node.names
                                 if _in_sandbox(a.name) and a.name != SANDBOX)
    assert offenders == [], "\n".join(offenders)


def test_the_face_gives_every_name_it_lists():
    """``__all__`` is resolved lazily (the zygote imports ``judge.sandbox`` first and must not pay for it): each
    name must still be there, and be the very object its type hints (the ``TYPE_CHECKING`` imports) say."""
    import importlib

    import judge.sandbox

    hinted = {}
    for node in ast.walk(ast.parse((PACKAGE / "sandbox" / "__init__.py").read_text())):
        if isinstance(node, ast.ImportFrom) and _in_sandbox(node.module or ""):
            hinted.update({a.asname or a.name: (node.module, a.name) for a in node.names})
    assert sorted(hinted) == sorted(judge.sandbox.__all__), "the face's hints and __all__ differ"
    wrong = []
    for name, (module, attribute) in hinted.items():
        home = importlib.import_module(module)
        expected = getattr(home, attribute, None) or importlib.import_module(f"{module}.{attribute}")
        if getattr(judge.sandbox, name) is not expected:
            wrong.append(f"{name}: {getattr(judge.sandbox, name)!r}, the hints say {expected!r}")
    assert wrong == [], wrong


def test_the_isolation_mode_is_compared_only_in_the_mode_classes():
    """``mode == "reduced"`` anywhere else means learning a mode takes reading the whole package: a mode's
    behaviour is one of its class's methods (judge.sandbox.modes).  launch.py names the one mode a cold start
    launches before anything is imported (AHEAD_MODE), as a constant."""
    from judge.sandbox.boundary.contract import LADDER

    offenders = []
    for path in PACKAGE.rglob("*.py"):
        if "modes" in path.relative_to(PACKAGE).parts:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Compare):
                constants = [c for c in [node.left, *node.comparators] for c in ([c] if not isinstance(c, ast.Tuple)
                                                                                 else c.elts)]
                names = {c.value for c in constants if isinstance(c, ast.Constant) and isinstance(c.value, str)}
                if names & set(LADDER):
                    offenders.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}: {ast.unparse(node)}")
    assert offenders == [], "\n".join(offenders)


def test_a_tier_set_by_hand_that_disagrees_with_what_the_test_uses_fails_collection(tmp_path):
    """tests/support/tiers.py derives each test's tier; a marker that says otherwise stops the run at collection.

    The probe lives outside tests/ with tests/conftest.py loaded as a plugin (the hook that derives tiers): a file
    written into tests/ would appear to, and vanish from, the layout checks that read tests/ while pytest-xdist
    runs them beside this test."""
    import subprocess
    import sys

    repo = Path(__file__).resolve().parents[3]
    probe = tmp_path / "test_zz_tier_probe.py"
    probe.write_text("import pytest\nfrom tests.support.common import require_sandbox\n\n\n@pytest.mark.unit\n"
                     "def test_claims_unit_yet_needs_the_sandbox():\n    require_sandbox()\n\n\n"
                     "def test_plain():\n    assert True\n")
    r = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
                        "-c", str(repo / "pyproject.toml"), "--rootdir", str(repo), "-p", "tests.conftest",
                        str(probe)], capture_output=True, text=True, cwd=repo, timeout=120)
    assert r.returncode == 4, (r.returncode, r.stdout[-1500:], r.stderr[-1500:])
    assert (
        "test_claims_unit_yet_needs_the_sandbox: marked unit, but what it uses makes it sandbox" in r.stderr + r.stdout
    )
