"""nbgrader: the autograde step that grades the judge's cells in nbgrader's own process, outside the kernel.

``nbgrader autograde`` sanitizes each submitted notebook (the instructor's locked cells put back, outputs
cleared), then runs it in a kernel (its ``Execute`` preprocessor) and scores each autograded test cell by what the
kernel printed.  Every learner cell runs in that kernel first, so a ``grade_cell`` run there reports what a
learner's cell lets it (see :mod:`judge.platforms.notebook_grading`).  :class:`JudgeExecute` takes ``Execute``'s
place: before any learner cell runs, it grades each judge cell (a locked grade cell calling ``grade_cell``)
from the saved notebook with the judge, against the bundle in the configured folder, and after the kernel it
writes that grade as the cell's outputs, the report on stdout and the points earned as its value (nbgrader's
partial credit), so nbgrader's ``SaveAutoGrades`` records the judge's grade, whatever the kernel said.

``run_cells`` (default False): whether nbgrader still runs the notebook in its kernel, for autograded test
cells of its own.  That kernel runs every learner cell outside any sandbox, as the user running nbgrader, as
nbgrader always does: such a cell can still change what that user can write (the gradebook, other students'
folders, a judge installed where that user can write), so the judge's cells then say the notebook also ran
unsandboxed.  With False no learner cell runs outside the judge's sandbox: only judge cells are graded, and any
other autograded test cell scores 0 with a message saying why.

In the course's ``nbgrader_config.py``::

    from judge.platforms.nbgrader_autograde import configure
    configure(c, problems="/srv/course/problems")     # absolute; default: $JUDGE_PROBLEMS_DIR
"""

from __future__ import annotations

import ast
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from nbformat.v4 import new_output
from nbgrader.preprocessors import Execute
from traitlets import Bool, Unicode

from judge.i18n import messages as m
from judge.platforms.course_language import at_run
from judge.platforms.notebook_grading import GRADED_OUTSIDE_ENV, grade_saved

RAN_CELLS_NOTE = m.PK_NBGRADER_NOTE


def judge_problem(cell: Any) -> str | None:
    """The problem a judge cell grades: a locked, autograded code cell in nbgrader's gradebook (its source is
    the instructor's, put back by nbgrader) calling ``grade_cell("<id>", ...)``; else None."""
    meta = cell.get("metadata", {}).get("nbgrader", {})
    if cell.get("cell_type") != "code" or not meta.get("grade") or meta.get("solution") or not meta.get("locked") \
            or not meta.get("grade_id"):
        return None
    try:
        tree = ast.parse(cell.get("source", ""))
    except SyntaxError:
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) == "grade_cell" \
                and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
            return node.args[0].value
    return None


def _is_other_test(cell: Any) -> bool:
    meta = cell.get("metadata", {}).get("nbgrader", {})
    return cell.get("cell_type") == "code" and bool(meta.get("grade")) and not meta.get("solution") \
        and judge_problem(cell) is None


@contextmanager
def _environ(name: str, value: str) -> Iterator[None]:
    old = os.environ.get(name)
    os.environ[name] = value
    try:
        yield
    finally:
        if old is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = old


class JudgeExecute(Execute):
    """nbgrader's ``Execute`` with the judge's cells graded outside the kernel (see the module's docstring)."""

    problems = Unicode("", help="Absolute folder of the course's full bundles (default: $JUDGE_PROBLEMS_DIR)."
                       ).tag(config=True)
    run_cells = Bool(False, help="Also run the notebook in nbgrader's kernel (its cells run unsandboxed there)."
                     ).tag(config=True)
    isolation = Unicode("", help="The isolation mode to insist on (default: the best this machine gives)."
                        ).tag(config=True)
    lang = Unicode("", help="The course's language, the reports' words: en, fr or ru (nbgrader tells no learner's; "
                            "default English).").tag(config=True)

    def preprocess(self, nb: Any, resources: Any = None, km: Any = None) -> tuple[Any, Any]:
        note = RAN_CELLS_NOTE if self.run_cells else None
        language = at_run(self.lang, "JudgeExecute.lang")
        if language.problem:
            self.log.warning("numpy-judge: %s", language.problem)
        graded = {}
        for index, cell in enumerate(nb.cells):  # before any learner cell runs anywhere
            problem = judge_problem(cell)
            if problem is not None:
                points = float(cell.metadata.nbgrader.get("points", 0) or 0)
                result = grade_saved(nb.cells[:index], self.problems or None, problem, self.isolation or None, note,
                                     language.lang)
                graded[index] = (result, points)
                say = self.log.warning if result.status == "internal_error" else self.log.info
                say("numpy-judge: cell %s (%s): %s, %.6g of %.6g points%s", index, problem, result.status,
                    result.score * points, points, f": {result.report}" if result.status == "internal_error" else "")
        if self.run_cells:
            with _environ(GRADED_OUTSIDE_ENV, "1"):
                nb, resources = super().preprocess(nb, resources, km)
        else:
            for cell in nb.cells:
                if _is_other_test(cell):
                    cell.outputs = [new_output("error", ename="NotRun", evalue="", traceback=[
                        "not run: this course grades with numpy-judge outside the kernel and runs no notebook "
                        "cell (JudgeExecute.run_cells = False)"])]
        for index, (result, points) in graded.items():
            nb.cells[index].outputs = [
                new_output("stream", name="stdout", text=result.report + "\n"),
                new_output("execute_result", data={"text/plain": repr(round(result.score * points, 6))},
                           execution_count=None)]
        return nb, resources if resources is not None else {}


def configure(c: Any, problems: str | Path | None = None, run_cells: bool = False, isolation: str = "",
              lang: str | None = None) -> None:
    """Put :class:`JudgeExecute` in place of ``Execute`` in nbgrader's autograde steps, with the course's
    problems folder (absolute; default ``$JUDGE_PROBLEMS_DIR``) and language (checked here: an unknown one is an
    error naming the choices)."""
    from nbgrader.converters import Autograde

    from judge.platforms.course_language import for_package

    folder = problems or os.environ.get("JUDGE_PROBLEMS_DIR")
    if not folder or not Path(folder).is_absolute():
        raise ValueError("judge.platforms.nbgrader_autograde.configure: give the course's problems folder as an "
                         f"absolute path (problems=...), not {folder!r}")
    steps = Autograde.class_traits()["autograde_preprocessors"].default()
    c.Autograde.autograde_preprocessors = [JudgeExecute if step is Execute else step for step in steps]
    c.JudgeExecute.problems = str(folder)
    c.JudgeExecute.run_cells = run_cells
    c.JudgeExecute.isolation = isolation
    c.JudgeExecute.lang = for_package(lang)
