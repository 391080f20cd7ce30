"""Where a problem's bundle folder is: by id in the problems folder, or by path.

Kept apart from the loader (which imports pydantic) so that a cold ``judge grade``
can find the bundle, and its cached run plan, before the heavy imports.
"""

from __future__ import annotations

import os
from pathlib import Path

from judge.errors import BundleError

# JUDGE_PROBLEMS_DIR overrides the problems folder beside the package (e.g. /opt/judge/problems in the image).
PROBLEMS_DIR = Path(os.environ.get("JUDGE_PROBLEMS_DIR") or Path(__file__).resolve().parents[2] / "problems")


def resolve(problem: str | Path) -> Path:
    """A problem id in the problems folder, or a path to a bundle folder."""
    candidate = Path(problem)
    if candidate.is_dir() and (candidate / "problem.yaml").is_file():
        return candidate.resolve()
    by_id = PROBLEMS_DIR / str(problem)
    if "/" not in str(problem) and (by_id / "problem.yaml").is_file():
        return by_id
    known = ", ".join(available()) or "none"
    raise BundleError(str(problem), None, f"unknown problem (known: {known})")


def available() -> list[str]:
    if not PROBLEMS_DIR.is_dir():
        return []
    return sorted(p.name for p in PROBLEMS_DIR.iterdir() if (p / "problem.yaml").is_file())
