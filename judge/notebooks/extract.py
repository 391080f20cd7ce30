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
notebook's ``for i in range(...)`` loop.  The kept statements are written in notebook order, each with the
cell and line of every line (:class:`SourceMap`).
"""

from __future__ import annotations

import ast
import re
import symtable
from dataclasses import dataclass, field

from judge.notebooks.ipython import to_python
from judge.notebooks.read import CodeCell, NotebookProblem, read_cells

#: Largest notebook file read (outputs included, never used): a learner's notebook is far smaller.
MAX_NOTEBOOK_BYTES = 64 << 20


@dataclass(frozen=True)
class _Statement:
    """One top-level statement of a cell, in notebook order."""

    position: int
    cell: CodeCell
    lines: list[str]  #: its source lines (decorators included)
    first_line: int  #: in its cell, 1-based
    binds: frozenset[str]
    immediate: frozenset[str]  #: global names read when it runs
    deferred: frozenset[str]  #: global names read later, inside the functions and classes it defines
    conditional: bool  #: binds inside a block (if, for, try, with, while), or reads what it binds
    star: bool = False  #: ``from m import *``


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
        place is never rewritten again)."""
        if not text or not self.origins:
            return text

        def swap(found: re.Match) -> str:
            line = next(g for g in found.groups() if g is not None)
            where = self.where(int(line))
            if where is None:
                return found.group(0)
            return ("in " if found.group(0).startswith("on ") else "") + where

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
    """Whether a submitted file is a notebook (JSON with cells), not Python: a .py file never starts with '{'
    followed by a notebook's keys."""
    head = data[:4096] if isinstance(data, str) else data[:4096].decode("utf-8", errors="replace")
    stripped = head.lstrip("\ufeff \t\r\n")
    return stripped.startswith("{") and ('"cells"' in head or '"nbformat"' in head or '"worksheets"' in head)


def graded_source(data: bytes | str, required: list[str]) -> GradedSource:
    """The graded file for the notebook in ``data``; :class:`NotebookProblem` (one line, with cell and line
    where there is one) when it cannot be graded."""
    if len(data) > MAX_NOTEBOOK_BYTES:
        raise NotebookProblem(f"the notebook is {len(data)} bytes (outputs included); the limit is "
                              f"{MAX_NOTEBOOK_BYTES} bytes: clear its outputs (Edit > Clear all outputs) and save")
    statements, skipped, broken, ipython_lines = _statements(read_cells(data))
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
        python, dropped = to_python(cell.source)
        magic_lines += dropped
        if python is None:
            skipped.append(cell.number)
            continue
        try:
            tree = ast.parse(python)
        except SyntaxError as exc:
            broken.append((cell, exc))
            skipped.append(cell.number)
            continue
        except (ValueError, RecursionError, MemoryError):
            skipped.append(cell.number)
            continue
        cell_lines = python.split("\n")
        for start, end, nodes in _line_groups(tree.body):
            statements.append(_analysed(len(statements), cell, cell_lines[start - 1:end], start, nodes))
    return statements, skipped, broken, magic_lines


def _line_groups(body: list[ast.stmt]) -> list[tuple[int, int, list[ast.stmt]]]:
    """The top-level statements by the lines they take (decorators included); statements sharing a line
    (``a = 1; b = 2``) are one: a line is kept or left whole."""
    groups: list[tuple[int, int, list[ast.stmt]]] = []
    for node in body:
        start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        end = node.end_lineno or node.lineno
        if groups and start <= groups[-1][1]:
            first, last, nodes = groups[-1]
            groups[-1] = (first, max(last, end), nodes + [node])
        else:
            groups.append((start, end, [node]))
    return groups


def _analysed(position: int, cell: CodeCell, lines: list[str], first: int, nodes: list[ast.stmt]) -> _Statement:
    """What one statement binds and reads at the top level, by the compiler's scope analysis."""
    star = any(isinstance(n, ast.ImportFrom) and any(a.name == "*" for a in n.names) for n in nodes)
    source = "\n".join(lines)
    try:
        table = symtable.symtable(source, "cell", "exec")
    except (SyntaxError, ValueError, RecursionError):
        return _Statement(position, cell, lines, first, frozenset(), frozenset(), frozenset(), False, star)
    binds, immediate = set(), set()
    for symbol in table.get_symbols():
        name = symbol.get_name()
        if symbol.is_assigned() or symbol.is_imported() or symbol.is_namespace():
            binds.add(name)
        if symbol.is_referenced():
            immediate.add(name)
    deferred: set[str] = set()
    _globals_of_children(table, deferred)
    blocks = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.Try, ast.With, ast.AsyncWith) + \
        ((ast.TryStar,) if hasattr(ast, "TryStar") else ())
    block = any(isinstance(n, blocks) for n in nodes)
    conditional = block or any(isinstance(n, ast.AugAssign) for n in nodes) or bool(binds & immediate)
    return _Statement(position, cell, lines, first, frozenset(binds), frozenset(immediate), frozenset(deferred),
                      conditional, star)


def _globals_of_children(table: symtable.SymbolTable, out: set[str]) -> None:
    """The module-level names the functions and classes defined in ``table`` read (free names resolved to the
    module: implicit or declared globals)."""
    for child in table.get_children():
        for symbol in child.get_symbols():
            if symbol.is_referenced() and (symbol.is_global() or (child.get_type() == "class" and
                                                                  not symbol.is_local())):
                out.add(symbol.get_name())
        _globals_of_children(child, out)


def _needed(statements: list[_Statement], required: list[str], broken: list[tuple[CodeCell, SyntaxError]],
            defined: list[str]) -> list[_Statement]:
    """The statements the required names reach (see the module's docstring), in notebook order."""
    end = len(statements)
    missing = [name for name in required if not _bindings(statements, name, end)]
    if missing:
        if broken:
            cell, exc = broken[0]
            raise NotebookProblem(f"syntax error in {cell.label}, line {exc.lineno}: {exc.msg}", cell.number,
                                  exc.lineno)
        shown = ", ".join(defined[:20]) + (" ..." if len(defined) > 20 else "") if defined else "nothing"
        raise NotebookProblem(f"the notebook defines no {', '.join(f'{m}()' for m in missing)} at the top level "
                              f"of a code cell (it defines: {shown})")
    kept: set[int] = set()
    todo = [(name, end) for name in required]
    while todo:
        name, before = todo.pop()
        for s in _bindings(statements, name, before):
            if s.position in kept:
                continue
            kept.add(s.position)
            todo += [(n, s.position) for n in s.immediate]
            todo += [(n, end) for n in s.deferred]
            todo += [(n, s.position) for n in s.binds if s.conditional]
    for s in statements:  # star imports before the last kept statement: what they bind is unknown
        if s.star and kept and s.position < max(kept):
            kept.add(s.position)
    return [s for s in statements if s.position in kept]


def _bindings(statements: list[_Statement], name: str, before: int) -> list[_Statement]:
    """The statements that make ``name``'s value as seen just before position ``before``: its last binding
    there, with the ones before it when that binding is conditional or reads the name."""
    out: list[_Statement] = []
    for s in reversed(statements[:before]):
        if name in s.binds:
            out.append(s)
            if not s.conditional:
                break
    return out
