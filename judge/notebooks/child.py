"""The notebook reader's own process: what :mod:`judge.notebooks.submitted` runs to read a submitted notebook.

Reading a notebook is parsing a learner's JSON and Python: linear, but Python's parsers can take hundreds of
MiB for a MiB of pathological text, and a learner can send whatever makes them slowest.  So the reading
happens here, in a fresh interpreter (``-I -S``: nothing but the standard library and this package) that
limits itself before it reads a byte: CPU seconds (RLIMIT_CPU) and address space (RLIMIT_AS), no core file.
A judge serving many learners never holds a learner's notebook as Python objects, and what runs out here is one
learner's ``compile_error``.

The protocol (one request, one answer): stdin is one line of JSON (``required``: the bundle's function names;
``sniff``: the file has no name that says it is a notebook) followed by the file's bytes; stdout is one JSON
object, ``{"kind": "python"}`` (sniffed, and not a notebook: grade the file as Python), ``{"kind": "problem",
"message", "cell", "line"}`` or ``{"kind": "notebook", ...}`` (:func:`to_wire`).
"""

from __future__ import annotations

import ast
import gc
import json
import resource
import sys

from judge.notebooks.extract import GradedSource, graded_cells
from judge.notebooks.read import NotebookProblem, cells_of, is_notebook, parse_json


def to_wire(graded: GradedSource) -> dict:
    """A graded notebook as JSON: the map's lines as (cell, line) pairs, each cell's id once."""
    ids = {str(cell): cell_id for cell, _, cell_id in graded.map.origins if cell_id}
    return {"kind": "notebook", "source": graded.source, "lines": [[c, n] for c, n, _ in graded.map.origins],
            "ids": ids, "cells_used": graded.cells_used, "cells_skipped": graded.cells_skipped,
            "defined": graded.defined, "ipython_lines": graded.ipython_lines}


def _problem(problem: NotebookProblem) -> dict:
    return {"kind": "problem", "message": problem.message, "cell": problem.cell, "line": problem.line}


def _is_python(data: bytes) -> bool:
    """Whether ``data`` is a Python program: it parses, and is more than one dict display (a notebook's JSON
    with a JSON mistake Python forgives, a trailing comma, is still a broken notebook)."""
    try:
        tree = ast.parse(data.decode("utf-8"))
    except (SyntaxError, ValueError, RecursionError, MemoryError):  # UnicodeDecodeError is a ValueError
        return False
    return not (len(tree.body) == 1 and isinstance(tree.body[0], ast.Expr) and isinstance(tree.body[0].value, ast.Dict))


def answer(data: bytes, required: list[str], sniff: bool) -> dict:
    """What the file ``data`` is and, for a notebook, its graded source.  ``sniff``: nothing but its content
    says it is a notebook, so a file that does not parse as one but parses as Python is Python."""
    try:
        document = parse_json(data)
    except NotebookProblem as problem:
        return {"kind": "python"} if sniff and _is_python(data) else _problem(problem)
    if sniff and not is_notebook(document) and _is_python(data):
        return {"kind": "python"}
    del data
    try:
        return to_wire(graded_cells(cells_of(document), required))
    except NotebookProblem as problem:
        return _problem(problem)
    except (MemoryError, RecursionError):
        return _problem(NotebookProblem("the notebook cannot be read in the memory allowed: is a cell holding "
                                        "data rather than code?"))


def _limit(cpu_seconds: int, memory_bytes: int) -> None:
    """Lower this process's limits to the reader's (never above a hard limit the machine already set)."""
    for which, wanted, spare in ((resource.RLIMIT_CPU, cpu_seconds, 1), (resource.RLIMIT_AS, memory_bytes, 0),
                                 (resource.RLIMIT_CORE, 0, 0)):
        soft, top = wanted, wanted + spare  # CPU: SIGXCPU at the limit, SIGKILL a second later
        _, hard = resource.getrlimit(which)
        if hard != resource.RLIM_INFINITY:
            soft, top = min(soft, hard), min(top, hard)
        resource.setrlimit(which, (soft, top))


def main() -> None:
    """Limits first, then one request from stdin, one answer on stdout."""
    cpu_seconds, memory_bytes = int(sys.argv[1]), int(sys.argv[2])
    _limit(cpu_seconds, memory_bytes)
    gc.disable()  # nothing here makes cycles worth collecting; collecting while a large tree grows is slow
    request = json.loads(sys.stdin.buffer.readline())
    data = sys.stdin.buffer.read()
    result = answer(data, [str(name) for name in request["required"]], bool(request["sniff"]))
    sys.stdout.write(json.dumps(result, ensure_ascii=True))
    sys.stdout.flush()
