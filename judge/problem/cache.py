"""Where prepared data (expected outputs, input bytes) is cached on disk.

Keyed by the bundle's digest and the numpy version: any change to the bundle's
files or to numpy gives a new folder, so a stale entry is never used.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Callable

CACHE_SCHEMA = "2"


def cache_root() -> Path:
    base = os.environ.get("JUDGE_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "numpy-judge")
    return Path(base)


def bundle_cache_dir(bundle_id: str, digest: str) -> Path | None:
    """The bundle's cache folder, created; None when the disk cache cannot be used."""
    import numpy as np  # here, not at import: a cold start finds its run plan (cache_root) before numpy

    folder = cache_root() / f"{bundle_id}-{digest}-np{np.__version__}-v{CACHE_SCHEMA}"
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return folder


def write_atomic(path: Path, write: Callable[[object], None]) -> None:
    """Write through a temporary file and rename, so readers never see half a file."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise
