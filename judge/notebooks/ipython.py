"""IPython syntax in a cell, handled as IPython does, line for line (a cell keeps its line numbers).

- A line magic (``%matplotlib inline``, ``%time f()``), a shell line (``!pip install ...``), an assignment
  from either (``files = !ls``, ``t = %timeit -o f()``) and a help line (``np.sum?``, ``??f``) are not Python:
  each becomes ``pass`` at its indentation (a magic inside a block keeps the block valid).  Only a line where
  Python itself stops is one: ``!=`` at the start of a docstring's second line, or ``% 2`` continuing an
  expression, are Python and stay (IPython, too, looks only at the start of a logical line).
- A cell magic that runs its body as Python (``%%time``, ``%%timeit``, ``%%capture``, ``%%prun``) loses only
  its first line; any other (``%%bash``, ``%%html``, ``%%writefile``, ``%%javascript`` ...) makes the cell
  something other than Python, skipped whole.
"""

from __future__ import annotations

import ast
import re

#: Cell magics whose body is Python run in the kernel's namespace.
PYTHON_CELL_MAGICS = frozenset({"time", "timeit", "capture", "prun", "debug"})

_IPYTHON_LINE = (
    re.compile(r"^(\s*)(?:[%!]|\?{1,2}[A-Za-z_])"),  # %magic, !shell, ?help
    re.compile(r"^(\s*)[A-Za-z_][\w.]*(?:\s*,\s*[A-Za-z_][\w.]*)*\s*=\s*[%!]"),  # x = !ls, t = %timeit -o f()
    re.compile(r"^(\s*)[A-Za-z_][\w.\[\]()'\"]*\?{1,2}\s*$"),  # np.sum?, f??
)


def to_python(source: str) -> tuple[str | None, int]:
    """The cell as Python with its line count kept, and how many lines were IPython syntax; (None, 0) for a
    cell whose cell magic makes it something other than Python.  A cell with a genuine syntax error is
    returned as it is (the caller reports it, with its line)."""
    lines = source.split("\n")
    dropped = 0
    first = lines[0].strip() if lines else ""
    if first.startswith("%%"):
        magic = first[2:].split(None, 1)[0] if len(first) > 2 else ""
        if magic not in PYTHON_CELL_MAGICS:
            return None, 0
        lines[0] = ""
        dropped += 1
    for _ in range(len(lines)):  # each round turns the line Python stops at, if it is IPython's, into pass
        try:
            ast.parse("\n".join(lines))
            break
        except SyntaxError as exc:
            at = (exc.lineno or 0) - 1
            found = next((m for m in (p.match(lines[at]) for p in _IPYTHON_LINE) if m), None) \
                if 0 <= at < len(lines) else None
            if found is None:
                break
            lines[at] = f"{found.group(1)}pass" if found.group(1) else ""
            dropped += 1
        except (ValueError, RecursionError, MemoryError):
            break
    return "\n".join(lines), dropped
