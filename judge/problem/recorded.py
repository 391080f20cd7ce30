"""Recorded outputs: what a hand-out bundle holds instead of the reference's and the mistakes' code.

A notebook course hands learners the public part of a bundle (``judge package notebook``) so that ``check()``
grades in their kernel.  The reference cannot go with it (it is the answer) and neither can ``mistakes.py``
(each mistake is the answer with one thing changed).  What the grading needs from them on the public cases is
their outputs, so those are recorded: ``recorded/index.json`` maps each implementation and the digest of a
case's inputs to an ``.npy`` file.  :class:`RecordedModule` stands where the imported module would, answering
for exactly the recorded inputs and raising :class:`NotRecorded` for any other, so the grading code (expected
outputs, the bank's mistakes) runs unchanged on a hand-out and nothing in it can compute a new answer.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from judge.errors import BundleError

INDEX = "index.json"
#: An index entry that is not a file: the implementation raised this exception (by class name) on those inputs.
RAISES = "raises:"


def _exception(name: str) -> Exception:
    """The exception a recorded call raised, rebuilt by class name (the cases' ``raises:`` match by name)."""
    import builtins

    known = getattr(builtins, name, None)
    if isinstance(known, type) and issubclass(known, Exception):
        return known("recorded")
    return type(name, (Exception,), {})("recorded")


class NotRecorded(LookupError):
    """Asked for an output on inputs that are not a recorded (public) case."""


def inputs_key(values: Mapping[str, Any]) -> str:
    """A digest of a call's arguments: names, and for arrays dtype, shape and values (layout and read-only
    flags do not change what a correct function returns, so they are left out)."""
    h = hashlib.sha256()
    for name in sorted(values):
        value = values[name]
        h.update(name.encode() + b"\0")
        if isinstance(value, np.ndarray):
            h.update(f"{value.dtype.str}{value.shape}".encode())
            h.update(np.ascontiguousarray(value).tobytes())
        else:
            h.update(f"{type(value).__name__}:{value!r}".encode())
        h.update(b"\1")
    return h.hexdigest()[:32]


class RecordedModule:
    """An implementation per attribute, each answering only the inputs recorded for it."""

    def __init__(self, folder: Path, table: Mapping[str, Mapping[str, str]], what: str) -> None:
        self._folder = folder
        self._table = table
        self._what = what

    def __getattr__(self, attr: str) -> Callable[..., np.ndarray | tuple[np.ndarray, ...]]:
        if attr.startswith("_") or attr not in self._table:
            raise AttributeError(attr)
        files = self._table[attr]

        def recorded(**values: Any) -> np.ndarray | tuple[np.ndarray, ...]:
            name = files.get(inputs_key(values))
            if name is None:
                raise NotRecorded(f"{self._what}: {attr} has no recorded output for these inputs (a hand-out "
                                  f"holds outputs for its public cases only)")
            if name.startswith(RAISES):
                raise _exception(name[len(RAISES):])
            if name.endswith(".npz"):  # a tuple output, its items in order
                with np.load(self._folder / name, allow_pickle=False) as items:
                    return tuple(items[f"item_{k}"] for k in range(len(items.files)))
            return np.load(self._folder / name, allow_pickle=False)

        recorded.__name__ = attr
        return recorded


def load_recorded(folder: Path, kind: str) -> RecordedModule:
    """The recorded ``kind`` ("reference" or "mistakes") of a hand-out's ``folder``."""
    index_path = folder / INDEX
    try:
        index = json.loads(index_path.read_text())
        table = index[kind]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise BundleError(str(index_path), None, f"no recorded {kind} outputs ({type(exc).__name__}: {exc})") from None
    if not isinstance(table, dict) or not all(isinstance(v, dict) for v in table.values()):
        raise BundleError(str(index_path), None, f"recorded {kind}: expected a mapping of implementation -> "
                                                 f"inputs digest -> file")
    for files in table.values():
        for name in files.values():
            if isinstance(name, str) and name.startswith(RAISES) and name[len(RAISES):].isidentifier():
                continue
            if not isinstance(name, str) or "/" in name.replace(f"{kind}/", "", 1) or ".." in name:
                raise BundleError(str(index_path), None, f"recorded {kind}: bad file name {name!r}")
    return RecordedModule(folder, table, f"the recorded {kind}")


def index_bytes(folder: Path) -> bytes:
    """The index's bytes, for the hand-out bundle's digest (the .npy files it names are written with it)."""
    try:
        return (folder / INDEX).read_bytes()
    except OSError as exc:
        raise BundleError(str(folder / INDEX), None, f"cannot read the recorded outputs' index: {exc}") from None
