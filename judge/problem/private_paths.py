"""The paths a learner's run must never read: the bundle, and every other place its content lives on this machine.

Modes full, rootless and container give the run a root of their own, where none
of these exist.  Mode reduced shares the machine's file system: where Landlock
cannot confine it, the sandbox hides each path named here from the run's uid
(:mod:`judge.sandbox.kernel.acl`), or refuses to run when it can do neither.  A red
team found the bundle's text beyond the bundle folder: a git checkout's packed
history holds every ``reference.py`` ever committed, and a course repository
keeps accepted example solutions beside its problems.  So the list is: the
bundle, the problems folder holding it, the problems an installed judge carries
(``judge/bundles/``), the judge's cache (expected outputs), and around each of those and the judge's own package,
any checkout's ``.git`` and a checkout's ``problems/`` and ``submissions/`` folders.

Imports only the standard library: a cold start computes it before its heavy imports.
"""

from __future__ import annotations

import os
from pathlib import Path

from judge.problem.cache import cache_root
from judge.problem.locate import PACKAGED

_CHECKOUT_FOLDERS = (".git", "problems", "submissions")


def _ancestors(path: Path) -> list[Path]:
    path = path.resolve()
    return [path, *path.parents]


def private_paths(bundle_root: Path) -> list[str]:
    """Folders the run's uid must not reach for the bundle at ``bundle_root``, most specific first, existing
    ones only."""
    root = Path(bundle_root).resolve()
    found: list[Path] = [root]
    parent = root.parent
    if any((sibling / "problem.yaml").is_file() for sibling in _safe_children(parent) if sibling != root):
        found.append(parent)  # a problems folder: every other bundle in it too
    cache = cache_root()
    found.append(cache)
    if PACKAGED.is_dir():  # an installed judge's own problems: every bundle it carries, whichever one is graded
        found.append(PACKAGED)
    package = Path(__file__).resolve().parents[1]
    for start in (root, cache, package):
        for ancestor in _ancestors(start):
            if ancestor == Path(ancestor.anchor):
                break
            for name in _CHECKOUT_FOLDERS:
                candidate = ancestor / name
                if (name == ".git" or (ancestor / ".git").exists()) and candidate.exists():
                    found.append(candidate)
    seen: set[str] = set()
    ordered = []
    for path in found:
        text = str(path)
        if text not in seen and os.path.exists(text):
            seen.add(text)
            ordered.append(text)
    return ordered


def _safe_children(folder: Path) -> list[Path]:
    try:
        return [folder / name for name in os.listdir(folder)][:1000]
    except OSError:
        return []
