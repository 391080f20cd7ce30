"""Example submissions graded once per test session, whichever test asks first.

Several modules grade the same example files with a judge of the same settings (one warm ``Judge()``, unphased):
the named-mistake tests (every wrong answer of sinusoidal-pe), the language sweep (every example of every
problem) and the notebook twins (every .py of sinusoidal-pe and rotary-embedding, beside its notebook).  Each
grade is the same work, repeated; CI's time is finite.  So the verdict of one file's bytes, under one bundle
folder, is kept for the session and handed to whoever asks next.  A verdict is read, never changed, by those
tests; one that needs a grade of its own (another judge's settings, a changed bundle) calls ``judge.grade``."""

from __future__ import annotations

import hashlib
import threading
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from judge import Judge
    from judge.verdict import Verdict

_verdicts: dict[tuple[str, str, str], Verdict] = {}
_lock = threading.Lock()


def graded(judge: Judge, path: Path, problem: Path) -> Verdict:
    """``path``'s verdict under the bundle folder ``problem``, graded by ``judge`` unless this session already
    graded the same bytes under the same folder (as ``path.name``: a notebook is told by its suffix)."""
    source = path.read_bytes()
    key = (str(problem.resolve()), path.name, hashlib.sha256(source).hexdigest())
    with _lock:
        known = _verdicts.get(key)
    if known is not None:
        return known
    verdict = judge.grade(source, problem, name=path.name)
    with _lock:
        return _verdicts.setdefault(key, verdict)
