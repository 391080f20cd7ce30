"""Where a problem's bundle folder is: by path, or by id in the folders of the person at the keyboard.

By id, the first of these folders that holds ``<id>/problem.yaml`` wins:

1. ``$JUDGE_PROBLEMS_DIR`` (``--problems-dir`` sets it for one command; the service's image sets it);
2. ``./problems`` where the command runs (an author's course repository);
3. the current folder itself (a notebook hand-out: the public bundle beside the starter notebook);
4. a notebook's own folder and its ``problems/`` (``check()`` in a kernel started elsewhere);
5. the problems folder beside the package (a checkout), then the problems the package carries (a wheel installs
   the repository's ``problems/`` as ``judge/bundles/``: setup.py).

``judge new`` and ``judge case add`` write where the author stands (``$JUDGE_PROBLEMS_DIR``, else
``./problems``), never into the installed package.  Kept apart from the loader (which imports pydantic) so that
a cold ``judge grade`` can find the bundle, and its cached run plan, before the heavy imports.
"""

from __future__ import annotations

import os
from pathlib import Path

from judge.errors import BundleError

ENV = "JUDGE_PROBLEMS_DIR"
#: The problems folder beside the package: a checkout's ``problems/`` (a wheel has none).
INSTALLED = Path(__file__).resolve().parents[2] / "problems"
#: The problems an installed wheel carries inside the package (the repository's problems/, as judge.bundles).
PACKAGED = Path(__file__).resolve().parents[1] / "bundles"
#: Where bundles are written and listed first: ``$JUDGE_PROBLEMS_DIR`` or, in a checkout, its problems folder.
PROBLEMS_DIR = Path(os.environ.get(ENV) or INSTALLED)


def search_dirs(near: str | Path | None = None) -> list[Path]:
    """The folders a problem id is looked up in, in order (see the module's docstring); ``near``: a notebook's
    folder."""
    folders: list[Path] = []
    if os.environ.get(ENV):
        folders.append(Path(os.environ[ENV]))
    here = Path.cwd()
    folders += [here / "problems", here]
    if near is not None:
        folders += [Path(near), Path(near) / "problems"]
    folders += [f for f in (INSTALLED, PACKAGED) if f.is_dir()]  # a wheel has no checkout beside it, and back
    unique: list[Path] = []
    for folder in folders:
        if folder.resolve() not in [u.resolve() for u in unique]:
            unique.append(folder)
    return unique


def origin(folder: Path, near: str | Path | None = None) -> str:
    """What a lookup folder of :func:`search_dirs` is, in the words of ``judge problems``."""
    here = Path.cwd()
    labels = [(INSTALLED, "beside the judge (its checkout)"), (PACKAGED, "installed with the judge"),
              (here / "problems", "./problems"), (here, "this folder")]
    if os.environ.get(ENV):
        labels.insert(0, (Path(os.environ[ENV]), f"${ENV}"))
    if near is not None:
        labels += [(Path(near), "the notebook's folder"), (Path(near) / "problems", "the notebook's problems")]
    return next((label for path, label in labels if path.resolve() == folder.resolve()), "")


def authoring_dir() -> Path:
    """Where ``judge new`` writes a bundle: ``$JUDGE_PROBLEMS_DIR``, else ``./problems``."""
    return Path(os.environ.get(ENV) or Path.cwd() / "problems")


def resolve(problem: str | Path, near: str | Path | None = None) -> Path:
    """A path to a bundle folder, or a problem id looked up in :func:`search_dirs`."""
    candidate = Path(problem)
    if candidate.is_dir() and (candidate / "problem.yaml").is_file():
        return candidate.resolve()
    if "/" not in str(problem) and str(problem) not in ("", ".", ".."):
        for folder in search_dirs(near):
            if (folder / str(problem) / "problem.yaml").is_file():
                return folder / str(problem)
    looked = "; ".join(str(f) for f in search_dirs(near))
    known = ", ".join(available(near)) or "none"
    raise BundleError(str(problem), None, f"unknown problem (known: {known}; looked in: {looked})")


def available(near: str | Path | None = None) -> list[str]:
    """Every problem id the folders of :func:`search_dirs` hold (the first folder's wins for an id)."""
    found: set[str] = set()
    for folder in search_dirs(near):
        if folder.is_dir():
            try:
                found.update(p.name for p in folder.iterdir() if (p / "problem.yaml").is_file())
            except OSError:
                continue
    return sorted(found)
