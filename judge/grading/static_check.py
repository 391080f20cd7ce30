"""Checks made before anything runs: the file decodes, parses, defines the functions
and imports only allowed modules.  A convenience for honest learners, not a
security boundary: the sandbox is that.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from judge.problem.infer import top_level_names

if TYPE_CHECKING:
    from judge.feedback import MessageRef


@dataclass(frozen=True)
class StaticProblem:
    message: str
    line: int | None = None
    said: MessageRef | None = None  #: the message as an id, for the learner's language


def _problem(name: str, where: int | None = None, **params: Any) -> StaticProblem:
    """A problem said by its message id (judge.i18n.messages' ``name``).  The catalog, and pydantic under it, are
    imported here, on a compile error only: the cold path before the run imports nothing heavy."""
    from judge.i18n import messages
    from judge.i18n.catalog import render

    said = getattr(messages, name)(**params)
    return StaticProblem(render(said, "en"), where, said)


def decode_source(data: bytes | str, max_bytes: int) -> tuple[str | None, StaticProblem | None]:
    raw = data.encode("utf-8", errors="surrogatepass") if isinstance(data, str) else data
    if len(raw) > max_bytes:
        return None, _problem("FILE_TOO_LARGE", size=len(raw), limit=max_bytes)
    if isinstance(data, str):
        return data, None
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        return None, _problem("NOT_UTF8", line, byte=exc.start, line=line)


def check_source(source: str, functions: list[str], allowed_imports: list[str]) -> StaticProblem | None:
    """The first problem found, or None."""
    try:
        tree = ast.parse(source, filename="submission.py")
    except SyntaxError as exc:
        return _problem("SYNTAX_ERROR", exc.lineno, error=exc.msg[:200], line=exc.lineno, column=exc.offset)
    except (ValueError, RecursionError, MemoryError) as exc:
        return _problem("CANNOT_PARSE", error=str(exc)[:200])
    allowed = set(allowed_imports)
    for node in ast.walk(tree):
        names: list[str] = []
        line = getattr(node, "lineno", 0)  # an import's line (names are found for imports only)
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                return _problem("RELATIVE_IMPORT", node.lineno, line=node.lineno)
            names = [node.module or ""]
        for name in names:
            if name.split(".")[0] not in allowed:
                shown = ", ".join(sorted(allowed))
                name = name if len(name) <= 80 else name[:77] + "..."  # a learner's name, quoted: bounded
                return _problem("IMPORT_NOT_ALLOWED", line, module=name, line=line, allowed=shown)
    defined = top_level_names(tree)
    missing = [f for f in functions if f not in defined]
    if missing:
        return _problem("MISSING_FUNCTIONS", count=len(missing), names=", ".join(f"{f}()" for f in missing))
    return None
