"""A notebook file as its code cells, read leniently: the JSON, not a validator's idea of it.

Jupyter, JupyterLab and Colab write nbformat 4.x with cell ids from 4.5 on; VS Code writes cells without ids or
metadata; sources are a string or a list of lines.  Outputs (megabytes of base64 pictures, widget state) are
never looked at.  What cannot be graded says so in one line: not JSON (where it stops), JSON Python's reader
cannot take (a number of thousands of digits, nesting deeper than its stack), not a notebook, an nbformat 3
file, no code cells, more code than a notebook holds.

Lenient, but never trusting: a value of an unexpected type is left out (a cell's source that is not text, an id
that is not nbformat's ``[a-zA-Z0-9-_]{1,64}``: an id is pasted into every "cell C, line M" a verdict says, so
it is kept only as nbformat allows it), and text Python could not encode (an unpaired UTF-16 surrogate, which
JSON's ``\\ud800`` escapes can make) becomes U+FFFD.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

#: The most characters of code cells read (what is graded is a part of them, checked against the bundle's
#: ``limits.source_kib`` later): reading is linear in this, and a notebook holds far less.
MAX_CODE_CHARS = 1 << 20
#: nbformat 4.5's pattern for a cell id.
CELL_ID = re.compile(r"[a-zA-Z0-9_-]{1,64}")
#: The most digits a JSON integer may have: nbformat's integers (versions, execution counts) are short, and
#: Python refuses to convert more than 4,300 (``sys.set_int_max_str_digits``) with an error about itself.
MAX_DIGITS = 100


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
    the notebook has a valid one, and its source as one string."""

    number: int
    id: str | None
    source: str

    @property
    def label(self) -> str:
        return f"cell {self.number}" + (f" (id {self.id})" if self.id else "")


def _integer(text: str) -> int:
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise NotebookProblem(f"the notebook cannot be read: it holds a number of {len(text.lstrip('-'))} digits "
                              "where a notebook's numbers are short (was the file edited by hand?)")
    return int(text)


def parse_json(data: bytes | str) -> object:
    """``data`` as JSON; :class:`NotebookProblem` naming what stops Python's reader."""
    try:
        return json.loads(data, parse_int=_integer)
    except json.JSONDecodeError as exc:
        hint = " (the file ends too early: was it saved completely?)" if exc.pos >= len(data) - 1 else ""
        at = "" if exc.msg.endswith(" at") else " at"  # "Unterminated string starting at"
        raise NotebookProblem(f"the notebook is not valid JSON: {exc.msg}{at} line {exc.lineno}, column "
                              f"{exc.colno}{hint}") from None
    except UnicodeDecodeError:
        raise NotebookProblem("the notebook is not UTF-8 text: save it again from Jupyter") from None
    except RecursionError:
        raise NotebookProblem("the notebook cannot be read: its JSON nests lists or objects deeper than a "
                              "notebook does (was the file edited by hand?)") from None
    except MemoryError:
        raise NotebookProblem("the notebook cannot be read in the memory allowed: clear its outputs "
                              "(Edit > Clear all outputs) and save") from None
    except ValueError as exc:  # anything else json refuses: say what, without Python's advice to itself
        raise NotebookProblem(f"the notebook cannot be read: {str(exc).split(';')[0][:120]}") from None


def is_notebook(document: object) -> bool:
    """Whether parsed JSON is meant as a notebook (any version): an object with notebook keys."""
    return isinstance(document, dict) and any(key in document for key in ("cells", "nbformat", "worksheets"))


def _text(value: object) -> str | None:
    """A cell's source: a string or a list of strings (others left out); None for any other type."""
    if isinstance(value, list):
        value = "".join(s for s in value if isinstance(s, str))
    if not isinstance(value, str):
        return None
    if not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            value = value.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
    return value


def cells_of(notebook: object) -> list[CodeCell]:
    """The code cells of a parsed notebook; :class:`NotebookProblem` when it is none."""
    if not isinstance(notebook, dict) or not isinstance(notebook.get("cells", notebook.get("worksheets")), list):
        raise NotebookProblem("the file is JSON but not a Jupyter notebook (it has no list of cells)")
    major = notebook.get("nbformat")
    old = major if isinstance(major, int) and not isinstance(major, bool) and major < 4 else None
    if "worksheets" in notebook or old is not None:
        version = old if old is not None and old >= 0 else 3
        raise NotebookProblem(f"the notebook is in nbformat {version}, which is not read here: open it in "
                              "Jupyter and save it again (it is converted to nbformat 4)")
    cells = []
    code = 0
    for number, cell in enumerate(notebook["cells"], start=1):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = _text(cell.get("source", ""))
        if source is None:
            continue
        code += len(source)
        if code > MAX_CODE_CHARS:
            raise NotebookProblem(f"the notebook's code cells hold more than {MAX_CODE_CHARS} characters (cell "
                                  f"{number} passes it): a notebook's code is far smaller; keep data in files, "
                                  "not in cells", number)
        cell_id = cell.get("id")
        valid = isinstance(cell_id, str) and CELL_ID.fullmatch(cell_id) is not None
        cells.append(CodeCell(number, cell_id if valid else None, source))
    if not cells:
        raise NotebookProblem("the notebook has no code cells: write your functions in a code cell")
    return cells


def read_cells(data: bytes | str) -> list[CodeCell]:
    """The code cells of the notebook in ``data``; :class:`NotebookProblem` when it is none."""
    return cells_of(parse_json(data))
