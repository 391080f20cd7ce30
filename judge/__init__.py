"""An auto-grading judge for numpy exercises.

Public API (imported lazily, so ``judge grade`` starts fast and the sandbox's
zygote, which imports ``judge.sandbox``, never loads the grading side)::

    from judge import grade, Judge, load_problem, Verdict
    from judge import check        # in a notebook: grade the kernel's functions on the public cases
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from judge._version import __version__

if TYPE_CHECKING:
    from judge.engine import Judge, grade
    from judge.errors import BundleError, JudgeError
    from judge.notebook_check import check
    from judge.problem.loader import load_problem
    from judge.verdict import Status, Verdict

_LAZY = {
    "grade": "judge.engine", "Judge": "judge.engine", "load_problem": "judge.problem.loader",
    "Verdict": "judge.verdict", "Status": "judge.verdict", "JudgeError": "judge.errors",
    "BundleError": "judge.errors", "check": "judge.notebook_check",
}

#: Spelt out (the same names as ``_LAZY``'s) so linters and type checkers see the TYPE_CHECKING imports used.
__all__ = ["__version__", "grade", "Judge", "load_problem", "Verdict", "Status", "JudgeError", "BundleError", "check"]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'judge' has no attribute {name!r}")
