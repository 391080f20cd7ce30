"""Why a notebook cannot be graded, as message ids.

The notebook reader (:mod:`judge.notebooks`, standard library only: it runs in a small child process with tight
limits) says why it refuses a file in fixed English; the judge says it again here as the catalog's messages, so a
learner reads it in their language.  A text no pattern knows stays as it is (said verbatim, in English)."""

from __future__ import annotations

import re
from collections.abc import Callable

from judge.feedback import MessageRef
from judge.i18n import messages as m
from judge.i18n.catalog import verbatim

_CELL = re.compile(r"cell (\d+)(?: \(id (.+)\))?")


def _cell(label: str) -> MessageRef:
    found = _CELL.fullmatch(label)
    if found is None:
        return verbatim(label)
    return m.NB_CELL_ID(number=int(found[1]), id=found[2]) if found[2] else m.NB_CELL(number=int(found[1]))


_Said = Callable[[re.Match[str]], MessageRef]
_FIXED = (m.NB_MEMORY_DATA, m.NB_TOO_DEEP, m.NB_MEMORY, m.NB_STOPPED, m.NB_NOT_UTF8, m.NB_NOT_A_NOTEBOOK, m.NB_NO_CODE)
_PATTERNS: list[tuple[re.Pattern[str], _Said]] = [
    *((re.compile(re.escape(message.text)), lambda g, message=message: message()) for message in _FIXED),
    (re.compile(r"the notebook is (\d+) bytes \(outputs included\); the limit is (\d+) bytes: clear its outputs "
                r"\(Edit > Clear all outputs\) and save"), lambda g: m.NB_TOO_LARGE(size=int(g[1]), limit=int(g[2]))),
    (re.compile(r"syntax error in (cell \d+(?: \(id .+?\))?), line (\d+): (.*)", re.DOTALL),
     lambda g: m.NB_SYNTAX(cell=_cell(g[1]), line=int(g[2]), error=verbatim(g[3]))),
    (re.compile(r"the notebook defines no (.+) at the top level of a code cell \(it defines: (.*)\)", re.DOTALL),
     lambda g: m.NB_DEFINES_NO(missing=g[1], defined=m.NB_NOTHING() if g[2] == "nothing" else verbatim(g[2]))),
    (re.compile(r"the notebook cannot be read: it holds a number of (\d+) digits where a notebook's numbers are "
                r"short \(was the file edited by hand\?\)"), lambda g: m.NB_BIG_NUMBER(digits=int(g[1]))),
    (re.compile(r"the notebook is not valid JSON: (.+) at line (\d+), column (\d+) \(the file ends too early: was "
                r"it saved completely\?\)", re.DOTALL),
     lambda g: m.NB_NOT_JSON_CUT(error=verbatim(g[1]), line=int(g[2]), column=int(g[3]))),
    (re.compile(r"the notebook is not valid JSON: (.+) at line (\d+), column (\d+)", re.DOTALL),
     lambda g: m.NB_NOT_JSON(error=verbatim(g[1]), line=int(g[2]), column=int(g[3]))),
    (re.compile(r"the notebook is in nbformat (-?\d+), which is not read here: open it in Jupyter and save it again "
                r"\(it is converted to nbformat 4\)"), lambda g: m.NB_OLD_FORMAT(version=int(g[1]))),
    (re.compile(r"the notebook's code cells hold more than (\d+) characters \(cell (\d+) passes it\): a notebook's "
                r"code is far smaller; keep data in files, not in cells"),
     lambda g: m.NB_CODE_TOO_LONG(limit=int(g[1]), number=int(g[2]))),
    (re.compile(r"reading the notebook took longer than ([\d.e+]+) s: is a cell holding data rather than code\?"),
     lambda g: m.NB_WALL(seconds=float(g[1]))),
    (re.compile(r"reading the notebook took more than (\d+) s of CPU time: is a cell holding data rather than "
                r"code\?"), lambda g: m.NB_CPU(seconds=int(g[1]))),
    (re.compile(r"the notebook cannot be read: (.+)", re.DOTALL), lambda g: m.NB_UNREADABLE(error=verbatim(g[1]))),
]


def refusal_said(text: str) -> MessageRef:
    """The reader's refusal ``text`` as message ids (Python's and the learner's words inside it said as they are),
    or the text itself, verbatim, when it is none of the reader's sentences."""
    for pattern, said in _PATTERNS:
        found = pattern.fullmatch(text)
        if found is not None:
            return said(found)
    return verbatim(text)
