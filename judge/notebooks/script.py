"""A plain script that checks itself (``from judge import check; check("p")`` at its end, run by ``python``, an
IDE's Run button or IPython's ``%run``): what of it is graded.

Graded as it stands, such a file fails the static check on its own ``import judge`` (a module learners may not
import) and would call ``check()`` again inside the sandbox.  So a script is graded as a notebook of one cell is:
the statements its required functions reach (:mod:`judge.notebooks.extract`), which leaves out the check, the
judge's import and any demo code (``print(...)``, ``plt.show()``, reading a data file), so a check of a script
and of the same code in a notebook agree.  Every other line is left blank rather than removed, so "line N" in the
verdict is line N of the learner's file.

When the extraction cannot say (a syntax error, a required function missing), the file is graded whole, less the
statements that import the judge or use what they imported: the static check then names the real problem at its
real line.
"""

from __future__ import annotations

import ast
import json

from judge.notebooks.extract import NotebookProblem, graded_source


def graded_script(text: str, required: list[str]) -> str:
    """``text`` with every line its required functions do not need blanked (see the module's docstring)."""
    cell = {"cell_type": "code", "metadata": {}, "execution_count": 1, "outputs": [], "source": text}
    notebook = json.dumps({"nbformat": 4, "nbformat_minor": 4, "metadata": {}, "cells": [cell]})
    try:
        graded = graded_source(notebook, required)
    except NotebookProblem:
        return without_the_judge(text)
    lines = [""] * (text.count("\n") + 1)
    for line, (_, at, _) in zip(graded.source.split("\n"), graded.map.origins):
        if 1 <= at <= len(lines):
            lines[at - 1] = line
    return "\n".join(lines).rstrip("\n") + "\n"


def without_the_judge(text: str) -> str:
    """``text`` with its top-level statements that import the judge, or use a name such an import bound, blanked."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return text  # graded as it is: the static check reports the syntax error where it is
    bound: set[str] = set()
    drop: list[ast.stmt] = []
    for node in tree.body:
        names = _judge_names(node)
        if names:
            bound |= names
            drop.append(node)
        elif bound & {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}:
            drop.append(node)
    lines = text.split("\n")
    for node in drop:
        for k in range(node.lineno - 1, node.end_lineno or node.lineno):
            lines[k] = ""
    return "\n".join(lines)


def _judge_names(node: ast.stmt) -> set[str]:
    """The names an ``import judge...`` / ``from judge... import ...`` statement binds (empty for any other)."""
    if isinstance(node, ast.Import):
        return {(a.asname or a.name).split(".")[0] for a in node.names if a.name.split(".")[0] == "judge"}
    if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "judge" and not node.level:
        return {a.asname or a.name for a in node.names}
    return set()
