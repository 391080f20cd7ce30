"""otter-grader: a test file in otter's exception format whose one test grades with the judge, and the plugin
configuration that makes its grade the judge's own.

otter runs a notebook's tests inside the learner's kernel (``grader.check`` while they work, ``otter run`` or
otter's Gradescope autograder when grading), on the kernel's globals.  The test this module writes ignores those
globals: it grades the cells the kernel has run, the way ``check()`` does (:mod:`judge.notebook_check`), so the
learner's functions run in the judge's sandbox, and a failure's message is the judge's diagnosis instead of a
traceback of the test.  Where the learner works, the bundle beside the notebook is the hand-out (public cases; the
message says how many hidden cases run on submission).

Run in the kernel the test is **feedback**: the learner's cells ran there first and can plant a bundle, change
``JUDGE_PROBLEMS_DIR`` or replace this module, so its report says so.  When grading, otter's plugin
:class:`judge.platforms.otter_plugin.JudgePlugin` (configured in ``otter_config.json``, which
:func:`write_test_file` writes, with the bundle's absolute path on the grading machine) grades the saved
notebook outside the kernel and replaces this test's result; the kernel's test then skips its own run.

The test is all or nothing, as an otter test case is: otter gives a test's points only when it raises nothing.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from judge.platforms.notebook_grading import GRADED_OUTSIDE_ENV
from judge.verdict import Status

TEMPLATE = '''"""{problem}: graded by numpy-judge in its sandbox (written by `judge package otter`; README: "Notebooks")."""

from otter.test_files import test_case

OK_FORMAT = False

name = {name!r}
points = {points!r}


@test_case(points={points!r}, hidden=False, success_message="numpy-judge: accepted")
def numpy_judge(env):
    from judge.platforms.otter import assert_accepted

    assert_accepted({problem!r})
'''  # noqa: E501 - a file written verbatim: its lines are its own


def test_file(problem: str, name: str, points: float) -> str:
    """The text of ``tests/<name>.py`` for otter."""
    return TEMPLATE.format(problem=problem, name=name, points=points)


def write_test_file(problem: str, out: Path, name: str | None = None, points: float = 1.0,
                    bundle: Path | None = None, lang: str | None = None) -> Path:
    """Write ``tests/<name>.py`` and, with ``bundle`` (the full bundle's absolute folder on the grading
    machine), the plugin's entry in ``out/otter_config.json`` (kept, with its other settings, when it exists)."""
    path = out / "tests" / f"{name or problem}.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(test_file(problem, name or problem, points))
    if bundle is not None:
        write_plugin_config(out / "otter_config.json", name or problem, bundle, lang)
    return path


def write_plugin_config(config: Path, test: str, bundle: Path, lang: str | None = None) -> None:
    """Add (or update) :class:`~judge.platforms.otter_plugin.JudgePlugin`'s bundle for ``test`` in otter's
    configuration file, and with ``lang`` the course's language its reports are written in."""
    import json

    from judge.errors import JudgeError
    from judge.platforms.course_language import for_package

    if not bundle.is_absolute():
        raise JudgeError(f"{bundle}: the grading machine's bundle folder must be an absolute path")
    try:
        data = json.loads(config.read_text()) if config.is_file() else {}
    except ValueError as exc:
        raise JudgeError(f"{config}: not JSON ({exc}); fix it or remove it") from None
    if not isinstance(data, dict) or not isinstance(data.setdefault("plugins", []), list):
        raise JudgeError(f"{config}: not an otter configuration (an object whose 'plugins' is a list)")
    plugins = data["plugins"]
    from judge.platforms.notebook_grading import OTTER_PLUGIN

    entry = next((p for p in plugins if isinstance(p, dict) and OTTER_PLUGIN in p), None)
    if entry is None:
        plugins[:] = [p for p in plugins if p != OTTER_PLUGIN]
        entry = {OTTER_PLUGIN: {}}
        plugins.append(entry)
    entry[OTTER_PLUGIN].setdefault("bundles", {})[test] = str(bundle)
    if lang is not None:
        entry[OTTER_PLUGIN]["lang"] = for_package(lang)
    config.write_text(json.dumps(data, indent=2) + "\n")


IN_KERNEL_NOTE = ("note: checked inside this notebook's kernel, which is feedback a notebook can forge; the "
                  "course's grade comes from otter's numpy-judge plugin, outside the kernel.")


def assert_accepted(problem: str) -> None:
    """Raise AssertionError carrying the judge's report unless the kernel's functions are accepted."""
    if os.environ.get(GRADED_OUTSIDE_ENV):  # otter's plugin graded the saved notebook; this result is replaced
        raise AssertionError("numpy-judge: graded outside this kernel, from the saved notebook")
    from judge.formats.text import render_text
    from judge.notebook_check import grade_here

    logging.getLogger("judge").addHandler(logging.NullHandler())  # nothing on stderr: it is not the learner's
    verdict, line = grade_here(problem)
    if verdict.status is not Status.ACCEPTED:
        report = render_text(verdict).splitlines()
        raise AssertionError("\n".join(report[:1] + [line] + report[1:] + [IN_KERNEL_NOTE]))
    print(f"numpy-judge: {verdict.problem}: {line}\n{IN_KERNEL_NOTE}")
