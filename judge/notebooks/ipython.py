"""IPython syntax in a cell, handled as IPython does, line for line (a cell keeps its line numbers).

- A line magic (``%matplotlib inline``, ``%time f()``), a shell line (``!pip install ...``), an assignment
  from either (``files = !ls``, ``t = %timeit -o f()``) and a help line (``np.sum?``, ``??f``) are not Python:
  each becomes ``pass`` at its indentation (a magic inside a block keeps the block valid).  Only a line that
  starts a logical line is one, as in IPython: ``!=`` at the start of a docstring's second line, or ``% 2``
  continuing an expression inside brackets, are Python and stay.
- A cell magic that runs its body as Python (``%%time``, ``%%timeit``, ``%%capture``, ``%%prun``) loses only
  its first line; any other (``%%bash``, ``%%html``, ``%%writefile``, ``%%javascript`` ...) makes the cell
  something other than Python, skipped whole.

Linear in the cell's size: a cell that parses is Python as it is (no line of IPython syntax starts a logical
line of valid Python); otherwise one pass over its lines follows strings, brackets and backslashes as Python's
tokenizer does, blanks the lines of IPython syntax that start a logical line, and the cell is parsed once more.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

#: Cell magics whose body is Python run in the kernel's namespace.
PYTHON_CELL_MAGICS = frozenset({"time", "timeit", "capture", "prun", "debug"})

#: A line of IPython syntax at the start of a logical line (group 1: its indentation): %magic, !shell, ?help;
#: x = !ls, t = %timeit -o f(); np.sum?, f??.
_IPYTHON_LINE = re.compile(r"""(\s*)(?:[%!]|\?{1,2}[A-Za-z_]
    |[A-Za-z_][\w.]*(?:\s*,\s*[A-Za-z_][\w.]*)*\s*=\s*[%!]
    |[A-Za-z_][\w.\[\]()'"]*\?{1,2}\s*$)""", re.VERBOSE)
#: What changes the tokenizer's state: a comment, a string's start, a bracket.
_SIGNIFICANT = re.compile(r"""#|'''|\"\"\"|'|"|[(\[{]|[)\]}]""")
#: The rest of an open string, up to and past its closing quote (a backslash escapes any character).
_ENDS = {quote: re.compile(r"(?:\\.|[^\\])*?" + quote) for quote in ("'''", '"""')}
_ENDS.update({quote: re.compile(r"(?:\\.|[^\\" + quote + "])*" + quote) for quote in ("'", '"')})


@dataclass
class _Tokenizer:
    """Where a line starts, as Python's tokenizer sees it: inside a string (``quote``), inside brackets
    (``depth``), or after a backslash."""

    quote: str | None = None
    depth: int = 0
    backslash: bool = False

    @property
    def at_start(self) -> bool:
        return self.quote is None and self.depth == 0 and not self.backslash

    def feed(self, line: str) -> None:
        """Advance past one physical line (without its newline)."""
        self.backslash = False
        at = 0
        if self.quote is not None:
            at = self._close(line, 0)
            if at < 0:
                return
        found = _SIGNIFICANT.search(line, at)
        while found is not None:
            token = found.group()
            if token == "#":
                return
            at = found.end()
            if token in "([{":
                self.depth += 1
            elif token in ")]}":
                self.depth = max(0, self.depth - 1)
            else:
                self.quote = token
                at = self._close(line, at)
                if at < 0:
                    return
            found = _SIGNIFICANT.search(line, at)
        self.backslash = _continues(line)

    def _close(self, line: str, at: int) -> int:
        """Where the open string ends in ``line`` (past its quote), or -1 when it goes on to the next line."""
        assert self.quote is not None
        end = _ENDS[self.quote].match(line, at)
        if end is not None:
            self.quote = None
            return end.end()
        if len(self.quote) == 1 and not _continues(line):
            self.quote = None  # an unterminated one-line string: a syntax error the parser reports
            return len(line)
        return -1


def _continues(line: str) -> bool:
    """Whether ``line`` ends in a backslash that joins it to the next (an odd number of them)."""
    stripped = line.rstrip("\r")
    return stripped.endswith("\\") and (len(stripped) - len(stripped.rstrip("\\"))) % 2 == 1


def logical_starts(lines: list[str]) -> list[bool]:
    """For each line, whether it starts a logical line of Python (not inside a string, brackets or after a
    backslash continuation)."""
    tokenizer = _Tokenizer()
    starts = []
    for line in lines:
        starts.append(tokenizer.at_start)
        tokenizer.feed(line)
    return starts


def _blank_ipython(lines: list[str]) -> int:
    """Turn each line of IPython syntax that starts a logical line into ``pass`` (or nothing at the margin), in
    place; how many there were.  Such a line is not fed to the tokenizer: its quotes and brackets are not
    Python's."""
    tokenizer = _Tokenizer()
    dropped = 0
    for at, line in enumerate(lines):
        if tokenizer.at_start:
            found = _IPYTHON_LINE.match(line)
            if found is not None:
                lines[at] = f"{found.group(1)}pass" if found.group(1) else ""
                dropped += 1
                continue
        if tokenizer.quote is None and _SIGNIFICANT.search(line) is None:  # most lines: nothing but the end
            tokenizer.backslash = _continues(line)
            continue
        tokenizer.feed(line)
    return dropped


@dataclass
class PythonCell:
    """A cell as Python: its text (line numbers kept), the lines of IPython syntax left out, and its syntax tree
    (None, with ``error`` set when it has a syntax error, or without for a cell the compiler cannot take at
    all: nesting deeper than its stack, a null character)."""

    text: str
    dropped: int
    tree: ast.Module | None
    error: SyntaxError | None = None


def python_cell(source: str) -> PythonCell | None:
    """The cell as Python (see the module's docstring); None for a cell whose cell magic makes it something
    other than Python."""
    lines = source.split("\n")
    dropped = 0
    first = lines[0].strip()
    if first.startswith("%%"):
        magic = first[2:].split(None, 1)[0] if len(first) > 2 else ""
        if magic not in PYTHON_CELL_MAGICS:
            return None
        lines[0] = ""
        dropped = 1
    text = "\n".join(lines) if dropped else source
    tree, error = _parse(text)
    if tree is not None or error is None:
        return PythonCell(text, dropped, tree, error)
    dropped += _blank_ipython(lines)
    text = "\n".join(lines)
    tree, error = _parse(text)
    return PythonCell(text, dropped, tree, error)


def _parse(text: str) -> tuple[ast.Module | None, SyntaxError | None]:
    """(tree, None), (None, the syntax error), or (None, None) for a cell the compiler cannot take at all."""
    try:
        return ast.parse(text), None
    except SyntaxError as exc:
        return None, exc
    except (ValueError, RecursionError, MemoryError):
        return None, None


def to_python(source: str) -> tuple[str | None, int]:
    """The cell as Python with its line count kept, and how many lines were IPython syntax; (None, 0) for a
    cell whose cell magic makes it something other than Python.  A cell with a genuine syntax error is
    returned as it is (the caller reports it, with its line)."""
    cell = python_cell(source)
    return (None, 0) if cell is None else (cell.text, cell.dropped)
