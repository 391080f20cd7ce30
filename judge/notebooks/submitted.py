"""What a submitted file is, and what is graded of it: the one door every grading path takes (the CLI, ``Judge``,
the packaged platform runs, the service).

A file is a notebook by its name (``.ipynb``); a file with another name (``answer.py``) is Python, whatever its
first line looks like.  A file without a name (standard input, the service's ``source``, bytes given to
``Judge.grade``) is a notebook only if it parses as one: its first 4 KiB look like a notebook's JSON and the
whole parses as JSON with a notebook's keys; a file that starts like one but does not parse as JSON and is a
Python program (a dict literal ``{"cells": ...}`` on its first line, then code) is Python.  (A JSON mistake
Python forgives, a trailing comma, leaves one dict display: still a broken notebook, said so.)

A notebook is read in a child process (:mod:`judge.notebooks.child`) under :class:`ReaderLimits` (5 s of CPU,
20 s of wall time, 768 MiB of address space).  Whatever a learner sends, reading it ends within them, as a
graded source or as one line saying why it cannot be graded (a ``compile_error``).  The last few answers are
kept by content (a cold ``judge grade`` asks twice: before its early run and when it grades).
"""

from __future__ import annotations

import hashlib
import json
import logging
import signal
import subprocess
import sys
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

from judge.notebooks.extract import MAX_NOTEBOOK_BYTES, GradedSource, SourceMap, looks_like_notebook

_CACHED = 8
log = logging.getLogger("judge")


class ReaderFailed(Exception):
    """The reader's process could not be started: the judge's trouble, not the learner's."""


@dataclass(frozen=True)
class ReaderLimits:
    """What reading one notebook may take."""

    #: CPU seconds (RLIMIT_CPU): reading a MiB of the worst notebooks takes well under one.
    cpu_seconds: int = 5
    #: Wall seconds before the reader is killed: CPU time on a busy machine, and its start-up.
    wall_seconds: float = 20.0
    #: Address space (RLIMIT_AS): a 64 MiB notebook of pictures needs ~250 MiB, a MiB of pathological code a few
    #: hundred.  The reader runs before the sandbox, within what a worker keeps for the submission's run.
    memory_bytes: int = 768 << 20


LIMITS = ReaderLimits()


@dataclass(frozen=True)
class Submitted:
    """What is graded: ``source`` (the file as sent, or a notebook's graded source), the notebook it came from
    (None for a Python file), and why a notebook cannot be graded (a ``compile_error``'s message, or "")."""

    source: str | bytes
    notebook: GradedSource | None = None
    refused: str = ""


def is_notebook_name(name: str | None) -> bool | None:
    """True for a ``.ipynb`` name, False for any other name with a suffix, None when the name says nothing (no
    name, ``-``, a name without a suffix)."""
    if not name or name == "-":
        return None
    suffix = Path(name).suffix.lower()
    return None if not suffix else suffix == ".ipynb"


def read_submission(data: str | bytes, required: list[str], name: str | None = None,
                    limits: ReaderLimits = LIMITS) -> Submitted:
    """What to grade of ``data`` (see the module's docstring).  Raises :class:`ReaderFailed` only when the
    reader's process cannot be started."""
    by_name = is_notebook_name(name)
    if by_name is False or (by_name is None and not looks_like_notebook(data)):
        return Submitted(data)
    if len(data) > MAX_NOTEBOOK_BYTES:
        return Submitted(data, refused=f"the notebook is {len(data)} bytes (outputs included); the limit is "
                                       f"{MAX_NOTEBOOK_BYTES} bytes: clear its outputs (Edit > Clear all outputs) "
                                       "and save")
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else bytes(data)
    key = (hashlib.sha256(raw).digest(), tuple(required), by_name is None, limits)
    with _lock:
        if key in _answers:
            _answers.move_to_end(key)
            return _submitted(data, _answers[key])
    answer = _ask(raw, required, by_name is None, limits)
    with _lock:
        _answers[key] = answer
        while len(_answers) > _CACHED:
            _answers.popitem(last=False)
    return _submitted(data, answer)


_answers: OrderedDict[tuple, dict] = OrderedDict()
_lock = threading.Lock()


def _submitted(data: str | bytes, answer: dict) -> Submitted:
    if answer["kind"] == "python":
        return Submitted(data)
    if answer["kind"] == "problem":
        return Submitted(data, refused=answer["message"])
    return Submitted(answer["graded"].source, answer["graded"])


def _ask(raw: bytes, required: list[str], sniff: bool, limits: ReaderLimits) -> dict:
    """The reader's answer for ``raw``: kind python, problem (with its message) or notebook (with ``graded``)."""
    request = json.dumps({"required": list(required), "sniff": sniff}).encode() + b"\n"
    command = [sys.executable, "-I", "-S", "-c", _BOOT, str(limits.cpu_seconds), str(limits.memory_bytes)]
    try:
        done = subprocess.run(command, input=request + raw, capture_output=True, timeout=limits.wall_seconds,
                              check=False)
    except subprocess.TimeoutExpired:
        return _refused(f"reading the notebook took longer than {limits.wall_seconds:g} s: is a cell holding data "
                        "rather than code?")
    except OSError as exc:
        raise ReaderFailed(f"the notebook reader could not be started: {exc}") from exc
    if done.returncode in (-signal.SIGXCPU, -signal.SIGKILL):
        return _refused(f"reading the notebook took more than {limits.cpu_seconds} s of CPU time: is a cell "
                        "holding data rather than code?")
    try:
        answer = json.loads(done.stdout) if done.returncode == 0 else None
        return _checked(answer)
    except (ValueError, TypeError, KeyError):
        pass
    tail = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or [f"exit {done.returncode}"]
    log.warning("the notebook reader failed: %s", tail[0][:300])
    if "MemoryError" in tail[0]:
        return _refused("the notebook cannot be read in the memory allowed: clear its outputs (Edit > Clear all "
                        "outputs) and save")
    return _refused("the notebook cannot be read: its reader stopped on it (is the file a notebook Jupyter "
                    "saved?)")


#: The child's first lines: the reader's modules, without the packages' ``__init__`` (they import what the reader
#: needs not: ~50 ms of every notebook's start-up).
_BOOT = f"""
import sys, types
for name, folder in (("judge", {str(Path(__file__).resolve().parents[1])!r}), ("judge.notebooks", {str(Path(__file__).resolve().parent)!r})):
    package = types.ModuleType(name)
    package.__path__ = [folder]
    sys.modules[name] = package
from judge.notebooks.child import main
main()
"""  # noqa: E501 - a file written verbatim: its lines are its own


def _refused(message: str) -> dict:
    return {"kind": "problem", "message": message}


def _checked(answer: object) -> dict:
    """The reader's answer with its types checked, a notebook's made a :class:`GradedSource`; ValueError,
    TypeError or KeyError for anything else."""
    if not isinstance(answer, dict) or answer.get("kind") not in ("python", "problem", "notebook"):
        raise ValueError("not an answer")
    if answer["kind"] == "python":
        return {"kind": "python"}
    if answer["kind"] == "problem":
        return _refused(_text(answer["message"]))
    ids = {int(cell): _text(cell_id) for cell, cell_id in answer["ids"].items()}
    origins = [(int(cell), int(line), ids.get(int(cell))) for cell, line in answer["lines"]]
    graded = GradedSource(_text(answer["source"]), SourceMap(origins), [int(c) for c in answer["cells_used"]],
                          [int(c) for c in answer["cells_skipped"]], [_text(n) for n in answer["defined"]],
                          int(answer["ipython_lines"]))
    return {"kind": "notebook", "graded": graded}


def _text(value: object) -> str:
    if not isinstance(value, str):
        raise TypeError("not text")
    return value
