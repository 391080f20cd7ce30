"""Notebooks shaped by an attacker, any size up to the service's 1 MiB body: what the notebook reader must take
in time linear in its size, and what must never blow up a verdict.  Built as raw JSON (not with nbformat: most
of them are not valid nbformat, on purpose).  Used by tests/notebooks/test_notebook_bounds.py and
bench/notebook_extract.py.

Each shape is ``shape(size, answer) -> str``: a notebook of about ``size`` characters whose graded functions are
``answer`` (a .py file's text), the rest of it the attack.  An honest Colab notebook is among them, as the
yardstick.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

REPO = Path(__file__).resolve().parents[2]

GOOD = (REPO / "submissions" / "sinusoidal-pe" / "accepted" / "vectorised.py").read_text()
REQUIRED = ["sinusoidal_pe", "add_positional_encoding"]
#: A wrong answer whose exception text names "line N" hundreds of times: each one is rewritten "cell C (id ...),
#: line M" in a notebook's verdict, so the answer cell's id is pasted into the verdict that many times per case.
LINE_CITING_CRASH = '''import numpy as np


def sinusoidal_pe(max_len, d_model, base=10000.0):
    raise ValueError("on line 1 " * 380)


def add_positional_encoding(x, base=10000.0):
    raise ValueError("on line 1 " * 380)
'''


T = TypeVar("T")


def answered(call: Callable[[], T], seconds: float) -> T:
    """``call()`` in a thread, waited for at most ``seconds``: what it returns, or what it raised raised here; an
    AssertionError when it had not answered (a test fails rather than hangs on a judge that never answers)."""
    answers: list = []

    def run() -> None:
        try:
            answers.append(call())
        except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread
            answers.append(exc)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    assert answers, f"no answer in {seconds:.0f} s"
    if isinstance(answers[0], BaseException):
        raise answers[0]
    return answers[0]


def _cell(source: str | list[str], cell_id: str | None = None, outputs: list | None = None) -> dict:
    cell = {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": outputs or [],
            "source": source}
    if cell_id is not None:
        cell["id"] = cell_id
    return cell


def _notebook(cells: list[dict], minor: int = 5, metadata: dict | None = None) -> dict:
    return {"nbformat": 4, "nbformat_minor": minor, "metadata": metadata or {}, "cells": cells}


def _dump(notebook: dict) -> str:
    return json.dumps(notebook, separators=(",", ":"))


def _room(size: int, *cells: dict) -> int:
    """Characters left for the attack once ``cells`` are written."""
    return max(0, size - len(_dump(_notebook(list(cells)))))


def honest_colab(size: int, answer: str = GOOD) -> str:
    """What Colab saves: a title, the answer in a few cells with #@title forms, noise cells, plots as outputs."""
    from tests.support.notebook import notebook, paragraphs

    cells = paragraphs(answer)
    bare = len(notebook(cells, "colab", outputs=0))
    return notebook(cells, "colab", outputs=max(0, (size - bare) // len(cells)))


def huge_outputs(size: int, answer: str = GOOD) -> str:
    """One answer cell whose stream output is a list of one-character lines: the most JSON objects per byte an
    output can hold (never read, but parsed)."""
    room = _room(size, _cell(answer, "answer"))
    lines = ["x"] * (room // 4)
    return _dump(_notebook([_cell(answer, "answer", [{"output_type": "stream", "name": "stdout", "text": lines}])]))


def bare_magics(size: int, answer: str = GOOD) -> str:
    """The answer, then a cell of nothing but ``%`` lines (each a line magic with no name)."""
    room = _room(size, _cell(answer, "answer"), _cell("", "magics"))
    return _dump(_notebook([_cell(answer, "answer"), _cell("%\n" * (room // 3), "magics")]))


def unbound_names(size: int, answer: str = GOOD) -> str:
    """Plain Python: the graded function reads tens of thousands of globals no cell binds (in a branch that never
    runs; within the bundle's 256 KiB for what is graded), and another cell binds as many other names: each
    unbound name was once a scan of every statement."""
    room = _room(size, _cell(answer, "answer"), _cell("", "filler"))
    count = max(1, min(room // 3, 200_000) // 8)
    graded = _reading(answer, "[" + ", ".join(f"u{i}" for i in range(count)) + "]")
    filler = "".join(f"w{i} = {i}\n" for i in range(max(1, (room - count * 8) // 17)))
    return _dump(_notebook([_cell(graded, "answer"), _cell(filler, "filler")]))


def _reading(answer: str, expression: str) -> str:
    """``answer`` whose sinusoidal_pe reads ``expression`` in a branch no case takes (max_len is never < 0)."""
    return answer.replace("def sinusoidal_pe(max_len, d_model, base=10000.0):\n",
                          "def sinusoidal_pe(max_len, d_model, base=10000.0):\n"
                          f"    if max_len < 0:\n        return {expression}\n", 1)


def many_cells(size: int, answer: str = GOOD) -> str:
    """Thousands of one-line cells, each with an id, each adding to a counter the answer (last) reads: every
    cell is needed, and each was once a walk back through all the cells before it."""
    graded = _reading(answer, "hits")
    one = len(_dump(_cell("hits += 1", "c-99999"))) + 1
    count = _room(size, _cell(graded, "answer"), _cell("hits = 0", "c-start")) // one
    cells = [_cell("hits = 0", "c-start")] + [_cell("hits += 1", f"c-{i}") for i in range(count)]
    return _dump(_notebook(cells + [_cell(graded, "answer")]))


def many_functions(size: int, answer: str = GOOD) -> str:
    """A cell of thousands of small functions (scratch helpers nothing needs): each opens a scope of its own, so
    each is a call of the compiler's scope analysis, the dearest statement to read."""
    room = _room(size, _cell(answer, "answer"), _cell("", "helpers"))
    helpers = "".join(f"def helper{i}(a):\n    return a + {i}\n" for i in range(room // 46))
    return _dump(_notebook([_cell(answer, "answer"), _cell(helpers, "helpers")]))


def long_id(size: int, answer: str = GOOD) -> str:
    """The answer cell's id is the whole notebook: nbformat allows 64 characters of [a-zA-Z0-9-_]."""
    return _dump(_notebook([_cell(answer, "i" * max(1, _room(size, _cell(answer, ""))))]))


def deep_json(size: int, answer: str = GOOD) -> str:
    """The notebook's metadata nests lists as deep as the size allows."""
    depth = max(1, _room(size, _cell(answer, "answer")) // 2)
    text = _dump(_notebook([_cell(answer, "answer")], metadata={"deep": "@"}))
    return text.replace('"@"', "[" * depth + "]" * depth, 1)


def deep_python(size: int, answer: str = GOOD) -> str:
    """A noise cell whose one expression is a chain too deep for Python's compiler (``1+1+...``)."""
    room = _room(size, _cell(answer, "answer"), _cell("", "deep"))
    return _dump(_notebook([_cell(answer, "answer"), _cell("z = 1" + "+1" * (room // 2), "deep")]))


def huge_number(size: int, answer: str = GOOD) -> str:
    """``nbformat_minor`` an integer of 5,000 digits: more than Python converts from text by default."""
    text = _dump(_notebook([_cell(answer, "answer")], minor=7))
    return text.replace('"nbformat_minor":7', '"nbformat_minor":' + "9" * max(5000, _room(size) // 2), 1)


#: Shape name -> (builder, the verdict an accepted answer in it gets).
SHAPES: dict[str, tuple[Callable[..., str], str]] = {
    "honest_colab": (honest_colab, "accepted"),
    "huge_outputs": (huge_outputs, "accepted"),
    "bare_magics": (bare_magics, "accepted"),
    "unbound_names": (unbound_names, "accepted"),
    "many_cells": (many_cells, "accepted"),
    "many_functions": (many_functions, "accepted"),
    "long_id": (long_id, "accepted"),
    "deep_json": (deep_json, "compile_error"),
    "deep_python": (deep_python, "accepted"),
    "huge_number": (huge_number, "compile_error"),
}
