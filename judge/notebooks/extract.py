"""From a notebook's code cells to the one file that is graded: the statements the required functions reach.

A kernel that ran the notebook top to bottom holds, for each name, what its last top-level binding made.  The
graded file keeps exactly the statements needed to rebuild what the bundle's functions use:

- for a required function, its last binding in the notebook (a later cell's redefinition wins, in either
  direction: right then wrong is graded wrong);
- for every global name a kept statement uses, the binding that statement sees: a name used when the
  statement runs (a default argument, a decorator, an assignment's right-hand side) takes the last binding
  *before* it; a name used inside a function body (looked up at call time) takes the last binding overall;
  a binding that reads the name it binds (``x += 1``) or binds it only sometimes (inside ``if``/``for``)
  keeps the earlier bindings too;
- ``from m import *`` lines come along whenever they precede a kept statement (what they bind is unknown).

Statements that bind nothing needed (``plt.show()``, a training loop, ``np.load("my_data.npy")`` whose
result nothing uses, ``while True: ...``) are never run.  Which names a statement uses and binds comes from
:mod:`symtable`, the compiler's own scope analysis, so a function's local ``i`` never drags in the
notebook's ``for i in range(...)`` loop (a statement that opens no scope of its own has its names read off the
tree already parsed, as symtable lists them: tests check the two agree).  The kept statements are written in
notebook order, each with the cell and line of every line (:class:`SourceMap`).

Linear in the notebook's size, whatever it holds: each statement is analysed once; the statements binding a
name are indexed by name once, and the walk back through a name's conditional bindings never walks a stretch
twice; every text made from the learner's (a name, an id, a message with cells named) is bounded.
"""

from __future__ import annotations

import _symtable
import ast
import bisect
import re
from dataclasses import dataclass, field

from judge.notebooks.ipython import python_cell
from judge.notebooks.read import CodeCell, NotebookProblem, read_cells

#: Largest notebook file read (outputs included, never used): a learner's notebook is far smaller.
MAX_NOTEBOOK_BYTES = 64 << 20
#: How much longer naming cells may make one text of a verdict (a message, a traceback, printed output): past
#: it, further lines keep their "line N".  Each place named costs at most ~100 characters (an id is at most 64).
REWRITE_GROWTH = 8 << 10
#: How much of a learner's name a message shows, and how many of the names.
NAME_SHOWN = 40
NAMES_SHOWN = 20


@dataclass(slots=True)
class _Statement:
    """One top-level statement of a cell, in notebook order."""

    position: int
    cell: CodeCell
    cell_lines: list[str]  #: all its cell's lines (shared by the cell's statements)
    first_line: int  #: in its cell, 1-based (decorators included)
    last_line: int
    binds: set[str]
    immediate: set[str]  #: global names read when it runs
    deferred: set[str]  #: global names read later, inside the functions and classes it defines
    conditional: bool  #: binds inside a block (if, for, try, with, while), or reads what it binds
    star: bool = False  #: ``from m import *``

    @property
    def lines(self) -> list[str]:
        """Its source lines."""
        return self.cell_lines[self.first_line - 1:self.last_line]


@dataclass
class SourceMap:
    """Where each line of the graded file came from: ``origins[k]`` is (cell number, line in cell, cell id) of
    line k+1.  :meth:`rewrite` turns the judge's "line N" into "cell C, line M" in any text about the file."""

    origins: list[tuple[int, int, str | None]] = field(default_factory=list)

    def where(self, line: int) -> str | None:
        if not 1 <= line <= len(self.origins):
            return None
        cell, in_cell, cell_id = self.origins[line - 1]
        return f"cell {cell}" + (f" (id {cell_id})" if cell_id else "") + f", line {in_cell}"

    #: The judge's ways of naming a line of the file: a traceback's frame, a static check's, a case message's.
    _LINE = re.compile(r'File "submission\.py", line (\d+)|\bon line (\d+)|\bline (\d+)(?=, in |, column )')

    def rewrite(self, text: str) -> str:
        """``text`` with every line of the graded file named by its cell and line (one pass: a rewritten
        place is never rewritten again), growing by at most :data:`REWRITE_GROWTH` characters."""
        if not text or not self.origins:
            return text
        room = REWRITE_GROWTH

        def swap(found: re.Match) -> str:
            nonlocal room
            line = next(g for g in found.groups() if g is not None)
            where = self.where(int(line)) if len(line) < 10 else None
            if where is None:
                return found.group(0)
            named = ("in " if found.group(0).startswith("on ") else "") + where
            if len(named) - len(found.group(0)) > room:
                return found.group(0)
            room -= len(named) - len(found.group(0))
            return named

        return self._LINE.sub(swap, text)


@dataclass
class GradedSource:
    """The file graded for a notebook, where its lines came from, and what the notebook held."""

    source: str
    map: SourceMap
    cells_used: list[int]
    cells_skipped: list[int]  #: not Python (a %%bash cell) or not parseable and not needed
    defined: list[str]  #: every top-level name the notebook binds
    ipython_lines: int  #: magics, shell and help lines turned into ``pass``


def looks_like_notebook(data: bytes | str) -> bool:
    """Whether a submitted file may be a notebook (JSON with cells), judged by its first 4 KiB: a .py file rarely
    starts with '{' followed by a notebook's keys (:mod:`judge.notebooks.submitted` decides for such a file)."""
    head = data[:4096] if isinstance(data, str) else data[:4096].decode("utf-8", errors="replace")
    stripped = head.lstrip("\ufeff \t\r\n")
    return stripped.startswith("{") and ('"cells"' in head or '"nbformat"' in head or '"worksheets"' in head)


def graded_source(data: bytes | str, required: list[str]) -> GradedSource:
    """The graded file for the notebook in ``data``; :class:`NotebookProblem` (one line, with cell and line
    where there is one) when it cannot be graded."""
    if len(data) > MAX_NOTEBOOK_BYTES:
        raise NotebookProblem(f"the notebook is {len(data)} bytes (outputs included); the limit is "
                              f"{MAX_NOTEBOOK_BYTES} bytes: clear its outputs (Edit > Clear all outputs) and save")
    return graded_cells(read_cells(data), required)


def graded_cells(cells: list[CodeCell], required: list[str]) -> GradedSource:
    """The graded file for a notebook's code cells (see :func:`graded_source`)."""
    statements, skipped, broken, ipython_lines = _statements(cells)
    defined = sorted({name for s in statements for name in s.binds})
    kept = _needed(statements, required, broken, defined)
    lines: list[str] = []
    origins: list[tuple[int, int, str | None]] = []
    for s in kept:
        for k, line in enumerate(s.lines):
            lines.append(line)
            origins.append((s.cell.number, s.first_line + k, s.cell.id))
    used = sorted({s.cell.number for s in kept})
    return GradedSource("\n".join(lines) + "\n", SourceMap(origins), used, skipped, defined, ipython_lines)


def _statements(cells: list[CodeCell]) -> tuple[list[_Statement], list[int], list[tuple[CodeCell, SyntaxError]], int]:
    statements: list[_Statement] = []
    skipped: list[int] = []
    broken: list[tuple[CodeCell, SyntaxError]] = []
    magic_lines = 0
    for cell in cells:
        python = python_cell(cell.source)
        if python is None:
            skipped.append(cell.number)
            continue
        magic_lines += python.dropped
        if python.tree is None:
            if python.error is not None:
                broken.append((cell, python.error))
            skipped.append(cell.number)
            continue
        cell_lines = python.text.split("\n")
        for start, end, nodes in _line_groups(python.tree.body):
            statements.append(_analysed(len(statements), cell, cell_lines, start, end, nodes))
    return statements, skipped, broken, magic_lines


def _line_groups(body: list[ast.stmt]) -> list[tuple[int, int, list[ast.stmt]]]:
    """The top-level statements by the lines they take (decorators included); statements sharing a line
    (``a = 1; b = 2``) are one: a line is kept or left whole."""
    groups: list[tuple[int, int, list[ast.stmt]]] = []
    for node in body:
        decorators = getattr(node, "decorator_list", None)
        start = min(node.lineno, min(d.lineno for d in decorators)) if decorators else node.lineno
        end = node.end_lineno or node.lineno
        if groups and start <= groups[-1][1]:
            first, last, nodes = groups[-1]
            nodes.append(node)
            groups[-1] = (first, max(last, end), nodes)
        else:
            groups.append((start, end, [node]))
    return groups


_BLOCKS = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.Try, ast.With, ast.AsyncWith) + \
    ((ast.TryStar,) if hasattr(ast, "TryStar") else ())
#: Nodes that open a scope of their own: a statement holding one is analysed by the compiler's symtable.
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda, ast.ListComp, ast.SetComp,
           ast.DictComp, ast.GeneratorExp)


def _analysed(position: int, cell: CodeCell, cell_lines: list[str], first: int, last: int,
              nodes: list[ast.stmt]) -> _Statement:
    """What one statement binds and reads at the top level, by the compiler's scope analysis (or, for a statement
    that opens no scope, by its names as symtable would list them: most of a notebook, at a fraction of the
    cost of compiling each statement again)."""
    star = block = False
    for n in nodes:
        star = star or (type(n) is ast.ImportFrom and any(a.name == "*" for a in n.names))
        block = block or isinstance(n, _BLOCKS) or type(n) is ast.AugAssign
    found = _flat_names(nodes)
    if found is not None:
        binds, immediate = found
        deferred: set[str] = set()
    else:
        try:
            binds, immediate, deferred = _scoped_names("\n".join(cell_lines[first - 1:last]))
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return _Statement(position, cell, cell_lines, first, last, set(), set(), set(), False, star)
    conditional = block or bool(binds & immediate)
    return _Statement(position, cell, cell_lines, first, last, binds, immediate, deferred, conditional, star)


def _flat_names(nodes: list[ast.stmt]) -> tuple[set[str], set[str]] | None:
    """(names bound, names read) by statements that open no scope, as symtable's module table has them; None
    when a node opens a scope (or a ``__future__`` import could change how annotations are read)."""
    first = nodes[0]
    if len(nodes) == 1 and type(first) is ast.Assign and type(first.value) is ast.Constant and \
            all(type(target) is ast.Name for target in first.targets):  # x = 1: most of a long notebook
        return {target.id for target in first.targets}, set()  # type: ignore[attr-defined]
    binds: set[str] = set()
    reads: set[str] = set()
    todo: list[ast.AST] = list(nodes)
    while todo:
        node = todo.pop()
        if type(node) is ast.Name:
            (reads if type(node.ctx) is ast.Load else binds).add(node.id)
            continue
        if type(node) is ast.Constant:
            continue
        if isinstance(node, _SCOPES):
            return None
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            if isinstance(node, ast.ImportFrom) and node.module == "__future__":
                return None
            binds.update(a.asname or a.name.split(".")[0] for a in node.names if a.name != "*")
            continue
        if isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and node.name:
            binds.add(node.name)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            binds.add(node.rest)
        for name in node._fields:
            value = getattr(node, name, None)
            if isinstance(value, list):
                todo.extend(v for v in value if isinstance(v, ast.AST))
            elif isinstance(value, ast.AST):
                todo.append(value)
    return binds, reads


def _scoped_names(source: str) -> tuple[set[str], set[str], set[str]]:
    """(names bound, names read when it runs, global names read later inside the functions and classes it
    defines) by a statement, from the compiler's symbol table.

    Read off the raw tables :func:`symtable.symtable` wraps (``_symtable``, CPython's own module behind it), as
    its ``is_assigned``/``is_imported``, ``is_referenced``, ``is_global`` and ``is_local`` read their flags: the
    wrapper objects cost more than the compiler's own work (a notebook of small functions is read ~1.3 times as
    fast), and tests check the two agree."""
    top = _symtable.symtable(source, "cell", "exec")
    binds = {name for name, flags in top.symbols.items() if flags & (_symtable.DEF_LOCAL | _symtable.DEF_IMPORT)}
    reads = {name for name, flags in top.symbols.items() if flags & _symtable.USE}
    deferred: set[str] = set()
    todo = list(top.children)
    while todo:  # free names resolved to the module: implicit or declared globals; a class body's non-locals
        child = todo.pop()
        in_class = child.type == _symtable.TYPE_CLASS
        for name, flags in child.symbols.items():
            scope = (flags >> _symtable.SCOPE_OFF) & _symtable.SCOPE_MASK
            if flags & _symtable.USE and (scope in _GLOBAL or (in_class and scope not in _LOCAL)):
                deferred.add(name)
        todo.extend(child.children)
    return binds, reads, deferred


_GLOBAL = (_symtable.GLOBAL_IMPLICIT, _symtable.GLOBAL_EXPLICIT)
_LOCAL = (_symtable.LOCAL, _symtable.CELL)


class _Bindings:
    """For each name, the positions of the statements binding it, in notebook order: indexed once."""

    def __init__(self, statements: list[_Statement]) -> None:
        self.statements = statements
        self.positions: dict[str, list[int]] = {}
        for s in statements:
            for name in s.binds:
                self.positions.setdefault(name, []).append(s.position)
        self._walked: dict[str, set[int]] = {}

    def binds(self, name: str) -> bool:
        return name in self.positions

    def new(self, name: str, before: int) -> list[_Statement]:
        """The statements that make ``name``'s value as seen just before position ``before`` -- its last binding
        there, with the ones before it while that binding is conditional or reads the name -- leaving out those
        an earlier call returned.  A walk stops where an earlier one went: from there down it is the same walk,
        so every binding is stepped over once in all."""
        positions = self.positions.get(name)
        if not positions:
            return []
        walked = self._walked.setdefault(name, set())
        out = []
        at = bisect.bisect_left(positions, before) - 1
        while at >= 0 and at not in walked:
            walked.add(at)
            s = self.statements[positions[at]]
            out.append(s)
            if not s.conditional:
                break
            at -= 1
        return out


def _needed(statements: list[_Statement], required: list[str], broken: list[tuple[CodeCell, SyntaxError]],
            defined: list[str]) -> list[_Statement]:
    """The statements the required names reach (see the module's docstring), in notebook order."""
    end = len(statements)
    index = _Bindings(statements)
    missing = [name for name in required if not index.binds(name)]
    if missing:
        if broken:
            cell, exc = broken[0]
            raise NotebookProblem(f"syntax error in {cell.label}, line {exc.lineno}: {_shown(exc.msg, 200)}",
                                  cell.number, exc.lineno)
        shown = ", ".join(_shown(n, NAME_SHOWN) for n in defined[:NAMES_SHOWN]) + \
            (" ..." if len(defined) > NAMES_SHOWN else "") if defined else "nothing"
        raise NotebookProblem(f"the notebook defines no {', '.join(f'{m}()' for m in missing)} at the top level "
                              f"of a code cell (it defines: {shown})")
    kept: set[int] = set()
    todo = [(name, end) for name in required]
    while todo:
        name, before = todo.pop()
        for s in index.new(name, before):
            if s.position in kept:
                continue
            kept.add(s.position)
            todo += [(n, s.position) for n in s.immediate]
            todo += [(n, end) for n in s.deferred]
            todo += [(n, s.position) for n in s.binds if s.conditional]
    last = max(kept, default=-1)
    for s in statements[:last]:  # star imports before the last kept statement: what they bind is unknown
        if s.star:
            kept.add(s.position)
    return [s for s in statements if s.position in kept]


def _shown(text: str, limit: int) -> str:
    """A learner's text as a message quotes it: at most ``limit`` characters."""
    return text if len(text) <= limit else text[:limit - 3] + "..."
