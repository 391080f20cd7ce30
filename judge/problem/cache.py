"""Where prepared data (expected outputs, input bytes, run plans) is cached on disk.

Keyed by the bundle's digest and the numpy version: any change to the bundle's
files or to numpy gives a new folder, so a stale entry is never used.  The cache
decides verdicts (an expected output planted there passes a wrong answer), so it
is used only in a folder nobody else can have written (:mod:`judge.problem.private_dir`):
``$JUDGE_CACHE_DIR`` (or the user's cache folder) when it is private, this user's
own folder inside it when it is a shared one (a ``1777`` tmpfs), and not at all
otherwise (everything is then computed afresh, as with a cold cache).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

CACHE_SCHEMA = "2"


def cache_root() -> Path:
    """The configured cache folder (``$JUDGE_CACHE_DIR``, else ``$XDG_CACHE_HOME/numpy-judge`` or
    ``~/.cache/numpy-judge``), checked or not: what a learner's run must never reach."""
    base = os.environ.get("JUDGE_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "numpy-judge")
    return Path(base)


def cache_dir() -> Path | None:
    """The private folder the judge's caches live in (see the module's docstring); None when there is none."""
    from judge.problem.private_dir import own_folder_in

    try:
        return own_folder_in(cache_root())
    except OSError:
        return None


def bundle_cache_dir(bundle_id: str, digest: str) -> Path | None:
    """The bundle's cache folder, created; None when the disk cache cannot be used."""
    import numpy as np  # here, not at import: a cold start finds its run plan (cache_root) before numpy

    base = cache_dir()
    if base is None:
        return None
    folder = base / f"{bundle_id}-{digest}-np{np.__version__}-v{CACHE_SCHEMA}"
    try:
        folder.mkdir(exist_ok=True)
    except OSError:
        return None
    return folder


def write_atomic(path: Path, write: Callable[[BinaryIO], object]) -> None:
    """Write through a temporary file and rename, so readers never see half a file."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise
