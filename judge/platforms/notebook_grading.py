"""Grading a course tool's notebook outside the learner's kernel: the step nbgrader's preprocessor and otter's
plugin share.

nbgrader and otter grade by running the learner's notebook in a kernel and reading what the kernel says; a cell of
the learner's runs in that kernel before the judge's test does, so it can plant a bundle folder where the judge
looks, set ``JUDGE_PROBLEMS_DIR`` with ``%env``, or put a fake ``judge`` module in ``sys.modules``, and the
kernel then reports whatever the learner likes.  So the grade is computed here instead, in the tool's own
process, before any learner cell runs: the saved notebook (the cells above the judge's cell) is graded by the
judge, the learner's functions in its sandbox, against the bundle at an absolute path the course configured;
nothing of the kernel's is read.  What the learner sees is the learner's view of the verdict
(:func:`judge.platforms.runner.learner_safe`): a hidden case's status, never its values.

The judge is kept for the process (the tool grades a class in one run) and closed when it ends.  It isolates as
the ladder allows (``JUDGE_ISOLATION`` / ``JUDGE_MIN_ISOLATION`` are honoured) and never runs a learner's code
without a sandbox: where none works, the grade is an error naming why, not a run.
"""

from __future__ import annotations

import atexit
import json
import logging
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judge.errors import BundleError, JudgeError
from judge.i18n.catalog import Message, render

_judges: dict[str, Any] = {}
_lock = threading.Lock()

#: Set in the environment of a kernel the tool starts after grading outside it: the kernel's own ``grade_cell`` /
#: test then skips its (discarded) run.  A learner who sets it in their own kernel only loses the kernel's check.
GRADED_OUTSIDE_ENV = "JUDGE_GRADED_OUTSIDE_KERNEL"
#: otter's name for the plugin (:mod:`judge.platforms.otter_plugin`, which imports otter: named here, not imported).
OTTER_PLUGIN = "judge.platforms.otter_plugin.JudgePlugin"


@dataclass(frozen=True)
class Graded:
    """One judge cell's grade: the report shown to the learner and the fraction of its points earned."""

    report: str
    score: float
    status: str


def bundle_at(problems: str | Path | None, problem: str) -> Path:
    """The bundle ``problem`` in the course's configured folder: an absolute path, never a lookup in a learner's
    folder.  ``problems``: a folder of bundles (or a bundle folder itself, for one-problem assignments)."""
    from judge.problem.locate import configured, resolve

    folder = Path(problems) if problems else configured()
    if folder is None:
        raise BundleError(problem, None, "no problems folder is configured for grading outside the kernel (the "
                                         "course's configuration names one, or JUDGE_PROBLEMS_DIR)")
    if not folder.is_absolute():
        raise BundleError(str(folder), None, "the problems folder for grading must be an absolute path")
    if (folder / "problem.yaml").is_file():
        root = resolve(folder)
    elif "/" in problem or problem in ("", ".", ".."):
        raise BundleError(problem, None, "not a problem id")
    else:
        root = resolve(folder / problem)
    return root


def notebook_text(cells: list[dict], metadata: dict | None = None) -> str:
    """The nbformat 4 JSON of ``cells`` as saved (outputs dropped: the judge never reads them), numbered as the
    learner's notebook numbers them."""
    kept = []
    for cell in cells:
        kind = cell.get("cell_type")
        entry: dict[str, Any] = {"cell_type": kind, "metadata": {}, "source": cell.get("source", "")}
        if isinstance(cell.get("id"), str):
            entry["id"] = cell["id"]
        if kind == "code":
            entry.update(outputs=[], execution_count=None)
        kept.append(entry)
    return json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": metadata or {}, "cells": kept})


def _judge(isolation: str | None) -> Any:
    from judge.engine import Judge

    key = isolation or ""
    with _lock:
        judge = _judges.get(key)
        if judge is None:
            # never unsafe: no sandbox, no run; phased: the learner's report shows printed text of a run that
            # was given no hidden case's arguments (judge.grading.phases)
            judge = Judge(isolation=isolation or None, phased=True)
            _judges[key] = judge
            if len(_judges) == 1:
                atexit.register(close_all)
        return judge


def close_all() -> None:
    with _lock:
        for judge in _judges.values():
            judge.close()
        _judges.clear()


def grade_saved(cells: list[dict], problems: str | Path | None, problem: str, isolation: str | None = None,
                note: Message | None = None, lang: str = "en") -> Graded:
    """Grade the saved ``cells`` (those above the judge's cell) against ``problem``; never raises: a bundle or a
    machine that cannot grade is a report that says so, worth nothing.  The report is in ``lang`` (the course's:
    the tool tells the judge no learner's language), ``note`` after it."""
    from judge.formats.text import render_text
    from judge.i18n import messages as m
    from judge.i18n.catalog import say, verbatim
    from judge.i18n.localize import localize
    from judge.notebook_check import headline
    from judge.platforms.runner import learner_safe

    logging.getLogger("judge").addHandler(logging.NullHandler())
    try:
        root = bundle_at(problems, problem)
        judge = _judge(isolation)
        verdict = judge.grade(notebook_text(cells), root)
        bundle = judge.problem(root).bundle
    except JudgeError as exc:
        return Graded(render(m.PK_NOTEBOOK_NOT_GRADED(error=verbatim(str(exc))), lang), 0.0, "internal_error")
    shown = localize(learner_safe(verdict, bundle), lang, bundle)
    report = render_text(shown, lang=lang).splitlines()
    lines = report[:1] + [headline(shown, lang=lang)] + report[1:]
    if note is not None:
        lines.append(say(note, lang))
    return Graded("\n".join(lines), float(verdict.score), verdict.status.value)
