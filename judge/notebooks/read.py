"""A notebook file as its code cells, read leniently: the JSON, not a validator's idea of it.

Jupyter, JupyterLab and Colab write nbformat 4.x with cell ids from 4.5 on; VS Code writes cells without ids or
metadata; sources are a string or a list of lines.  Outputs (megabytes of base64 pictures, widget state) are
never looked at.  What cannot be graded says so in one line: not JSON (where it stops), not a notebook, an
nbformat 3 file, no code cells.
"""

from __future__ import annotations

import json
from dataclasses import dataclass


class NotebookProblem(Exception):
    """The file cannot be graded as a notebook; ``message`` is the one line a learner reads."""

    def __init__(self, message: str, cell: int | None = None, line: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.cell = cell
        self.line = line


@dataclass(frozen=True)
class CodeCell:
    """One code cell: its place among all the notebook's cells (1-based, as a learner counts them), its id when
    the notebook has one, and its source as one string."""

    number: int
    id: str | None
    source: str

    @property
    def label(self) -> str:
        return f"cell {self.number}" + (f" (id {self.id})" if self.id else "")


def read_cells(data: bytes | str) -> list[CodeCell]:
    """The code cells of the notebook in ``data``; :class:`NotebookProblem` when it is none."""
    try:
        notebook = json.loads(data)
    except json.JSONDecodeError as exc:
        hint = " (the file ends too early: was it saved completely?)" if exc.pos >= len(data) - 1 else ""
        raise NotebookProblem(f"the notebook is not valid JSON: {exc.msg} at line {exc.lineno}, column "
                              f"{exc.colno}{hint}") from None
    except (UnicodeDecodeError, RecursionError) as exc:
        raise NotebookProblem(f"the notebook cannot be read: {type(exc).__name__}") from None
    if not isinstance(notebook, dict) or not isinstance(notebook.get("cells", notebook.get("worksheets")), list):
        raise NotebookProblem("the file is JSON but not a Jupyter notebook (it has no list of cells)")
    major = notebook.get("nbformat")
    if "worksheets" in notebook or (isinstance(major, int) and major < 4):
        raise NotebookProblem(f"the notebook is in nbformat {major or 3}, which is not read here: open it in "
                              "Jupyter and save it again (it is converted to nbformat 4)")
    cells = []
    for number, cell in enumerate(notebook["cells"], start=1):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        if isinstance(source, list):
            source = "".join(s for s in source if isinstance(s, str))
        if not isinstance(source, str):
            continue
        cell_id = cell.get("id")
        cells.append(CodeCell(number, cell_id if isinstance(cell_id, str) and cell_id else None, source))
    if not cells:
        raise NotebookProblem("the notebook has no code cells: write your functions in a code cell")
    return cells
