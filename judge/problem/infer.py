"""Which problem a learner's file answers, when nobody said: the problem whose required functions it defines.

A learner types ``judge grade myfile.py`` after reading a statement; they should not have to know the id the
bundle goes by.  Every problem the lookup folders hold (:mod:`judge.problem.locate`: an author's own
``./problems`` and the installed ones alike) names its functions in ``problem.yaml``; the file's top-level
definitions are matched against each set.  Exactly one fit: that problem.  Several fits where one problem's
functions include every other fit's (a file answering ``cross_entropy`` defines its ``softmax`` helper too):
the larger one, which the others cannot tell apart from it.  No full fit, but exactly one problem some of whose
functions the file defines: that one (a learner half-way through gets the verdict naming the missing function).
Otherwise no guess is made: the error lists each candidate with the functions it needs and says how to name one
(``--problem``).

Only PyYAML and the standard library are imported: a cold ``judge grade`` infers while its sandbox boots.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

from judge.errors import JudgeError
from judge.problem.locate import available, resolve

#: A top-level ``def name(`` in a file Python cannot parse: enough to tell which exercise it was meant for, so the
#: learner gets the syntax error in a verdict rather than a question about the problem.
_DEF = re.compile(r"^(?:async[ \t]+)?def[ \t]+([A-Za-z_]\w*)[ \t]*\(", re.MULTILINE)


class UnknownProblem(JudgeError):
    """The file fits no known problem, or several equally: the message lists the candidates."""


@dataclass(frozen=True)
class Candidate:
    """A problem the lookup folders hold, by the functions its file must define."""

    id: str
    root: Path
    functions: tuple[str, ...]


def candidates(near: str | Path | None = None) -> list[Candidate]:
    """Every problem found by id (the first folder's wins, as for a lookup), with its required functions; a
    bundle whose problem.yaml cannot be read is left out (``judge problems`` reports it)."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    found = []
    for pid in available(near):
        try:
            root = resolve(pid, near=near)
            with open(root / "problem.yaml", "rb") as f:
                spec = yaml.load(f, Loader=loader)  # noqa: S506 - a safe loader
            names = tuple(str(fn["name"]) for fn in spec["functions"])
        except (JudgeError, OSError, yaml.YAMLError, KeyError, TypeError):
            continue
        if names:
            found.append(Candidate(pid, root, names))
    return found


def defined_names(data: bytes | str, name: str | None = None) -> set[str]:
    """The names a file binds at its top level (functions, assignments, ``from m import f``: the static check's
    rule).  A notebook (by ``name``, or by its content as the grading door decides:
    :func:`judge.notebooks.submitted.read_submission`) is read in the judge's limited reader, once, and its
    cells' names taken; one it cannot read raises :class:`UnknownProblem` saying why (what a verdict would say)."""
    from judge.notebooks.submitted import read_submission

    submitted = read_submission(data, [], name)
    if submitted.refused:
        raise UnknownProblem(submitted.refused)
    if submitted.notebook is not None:
        return set(submitted.notebook.defined)
    text = data.decode("utf-8", errors="replace") if isinstance(data, bytes) else data
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return set(_DEF.findall(text))
    return top_level_names(tree)


def top_level_names(tree: ast.Module) -> set[str]:
    """What a module binds at its top level that can stand for a required function: ``def``, ``name = ...``,
    ``from m import name`` (the static check's rule, :mod:`judge.grading.static_check`, so that a file inferred
    to answer a problem is one its static check accepts)."""
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.ImportFrom):
            names.update(a.asname or a.name for a in node.names)
    return names


def infer_problem(data: bytes | str, what: str = "the file", near: str | Path | None = None,
                  name: str | None = None) -> Path:
    """The bundle folder of the one problem whose functions ``data`` defines (see the module's docstring);
    :class:`UnknownProblem` naming every candidate otherwise.  ``name``: the file's name (``.ipynb`` or not)."""
    known = candidates(near)
    try:
        plain = defined_names(data, name)
    except UnknownProblem as exc:
        how = "name its problem with --problem ID for the verdict"
        raise UnknownProblem(f"{what}: {exc} ({how})") from None
    fits = [c for c in known if set(c.functions) <= plain]
    widest = [c for c in fits if all(set(o.functions) <= set(c.functions) for o in fits)]
    if len(fits) == 1 or len(widest) == 1:
        return (fits[0] if len(fits) == 1 else widest[0]).root
    if not fits:
        started = [c for c in known if set(c.functions) & plain]
        if len(started) == 1:
            return started[0].root
    needs = "; ".join(f"{c.id} needs {', '.join(f + '()' for f in c.functions)}" for c in (fits or known))
    how = "name it with --problem ID (or a bundle folder)"
    if not known:
        raise UnknownProblem(f"{what}: no problems found to grade it against ({_looked(near)}); {how}")
    if fits:
        raise UnknownProblem(f"{what} defines the functions of {len(fits)} problems ({needs}): {how}")
    shown = sorted(n for n in plain if not n.startswith("_"))
    own = f" (it defines: {', '.join(shown[:12])}{' ...' if len(shown) > 12 else ''})" if shown else ""
    raise UnknownProblem(f"{what} defines the functions of no known problem{own}. Known problems: {needs}. "
                         f"Define those functions at the top level, or {how}")


def _looked(near: str | Path | None) -> str:
    from judge.problem.locate import search_dirs

    return "looked in: " + "; ".join(str(f) for f in search_dirs(near))
