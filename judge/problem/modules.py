"""Importing a bundle's own Python files (reference, mistake bank) in the judge's process.

Bundle code is trusted like the bundle's YAML, but a broken file is still a
broken bundle: reported as a BundleError naming the file, never a traceback.
It is never imported in a process that learner code can read.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterable
from pathlib import Path
from types import ModuleType

from judge.errors import BundleError


def import_bundle_file(path: Path, module_name: str, what: str) -> ModuleType:
    """Execute ``path`` as a private module; ``what`` names it in errors ("the reference")."""
    if not path.is_file():
        raise BundleError(str(path), None, "file not found")
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise BundleError(str(path), None, f"cannot import {what}")
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # noqa: BLE001 - a broken bundle is reported, not raised
        raise BundleError(str(path), None, f"{what} raised {type(exc).__name__}: {exc}") from None
    return module


def require_callables(module: object, names: Iterable[str], path: Path, what: str) -> None:
    for name in names:
        if not callable(getattr(module, name, None)):
            raise BundleError(str(path), None, f"{what} does not define {name}()")
