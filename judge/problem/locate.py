"""Where a problem's bundle folder is: by path, or by id in the folders the grader configured.

The bundle decides what counts as right, so it must come from whoever grades, never from whoever is graded.  A
learner's files often sit in the folder the judge runs in (nbgrader's and otter's kernels run in the learner's
submission folder; a learner can hand in a folder), and a folder there named like the problem, holding a
reference of the learner's making, must never be taken for the problem.  So:

* a **path** (a ``Path``, or text holding a ``/``: ``./week3``, ``/opt/judge/problems/sinusoidal-pe``) is taken
  as it is: whoever typed or configured it chose that folder;
* an **id** (text without a ``/``) is looked up, the first folder holding ``<id>/problem.yaml`` winning:

  - when ``$JUDGE_PROBLEMS_DIR`` is set (``--problems-dir`` sets it for one command; the service's image, a
    course's grading machine set it): in that folder, then among the installed problems, and **nowhere else**:
    not the working folder, not a notebook's folder;
  - when nothing is configured (an author at the keyboard, a learner's ``check()`` on their own machine):
    ``./problems``, the current folder itself (a hand-out folder: the public bundle beside the starter
    notebook), a notebook's own folder and its ``problems/`` (``check()`` in a kernel started elsewhere), then
    the installed problems.

The installed problems are those beside the package (a checkout's ``problems/``), then those the package carries (a
wheel installs the repository's ``problems/`` as ``judge/bundles/``: setup.py).  The
packaged runners (Gradescope, PrairieLearn, Exercism) and the out-of-kernel notebook graders (nbgrader's
preprocessor, otter's plugin) are given absolute bundle paths and never look an id up in a learner's folder.

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


def configured() -> Path | None:
    """The problems folder the grader configured (``$JUDGE_PROBLEMS_DIR``, absolute), or None."""
    value = os.environ.get(ENV)
    return Path(value).absolute() if value else None


def search_dirs(near: str | Path | None = None) -> list[Path]:
    """The folders a problem id is looked up in, in order (see the module's docstring); ``near``: a notebook's
    folder, consulted only when nothing is configured."""
    folders: list[Path] = []
    chosen = configured()
    if chosen is not None:
        folders.append(chosen)
    else:
        here = Path.cwd()
        folders += [here / "problems", here]
        if near is not None:
            folders += [Path(near).absolute(), Path(near).absolute() / "problems"]
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


def is_path(problem: str | Path) -> bool:
    """Whether ``problem`` names a folder (a ``Path``, or text with a ``/``) rather than an id to look up."""
    return isinstance(problem, Path) or "/" in str(problem)


def resolve(problem: str | Path, near: str | Path | None = None) -> Path:
    """The absolute bundle folder of a path, or of a problem id looked up in :func:`search_dirs`."""
    if is_path(problem):
        candidate = Path(problem)
        if candidate.is_dir() and (candidate / "problem.yaml").is_file():
            return candidate.resolve()
        raise BundleError(str(problem), None, "no problem bundle here (no problem.yaml in this folder)")
    name = str(problem)
    if name not in ("", ".", "..") and "\0" not in name:
        for folder in search_dirs(near):
            if (folder / name / "problem.yaml").is_file():
                return (folder / name).resolve()
    looked = "; ".join(str(f) for f in search_dirs(near))
    known = ", ".join(available(near)) or "none"
    raise BundleError(name, None, f"unknown problem (known: {known}; looked in: {looked})")


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
