"""otter-grader: the plugin that grades the judge's tests from the saved notebook, in otter's own process.

otter grades by running the submission in a kernel, test files included, and reading back the results the kernel
pickles; every learner cell runs in that kernel before the tests do (see :mod:`judge.platforms.notebook_grading`
for what a cell can do there).  :class:`JudgePlugin` grades each judge test itself, before the kernel starts:
the notebook as otter read it from the submission file, all its cells, the learner's functions in the judge's
sandbox, against the bundle at the absolute path the package names (``judge package otter`` writes the plugin's
configuration into ``otter_config.json``).  After grading, it replaces whatever the kernel reported for those
tests with that grade: all or nothing, as an otter test case is, with the judge's report as the test's output.

What it cannot close, and says on every report: otter still runs the learner's cells in its kernel, outside any
sandbox, as the user running otter, in the learner's submission folder, and trusts the pickle that kernel writes
(unpickling runs code in otter's process).  A notebook written against otter itself can still change otter's
results; the judge's grade of the saved notebook is sound, what otter records after it is as trustworthy as
that kernel.

In ``otter_config.json``::

    {"plugins": [{"judge.platforms.otter_plugin.JudgePlugin":
                  {"bundles": {"sinusoidal-pe": "/srv/course/problems/sinusoidal-pe"}, "lang": "fr"}}]}

(``bundles``: otter test name -> the absolute folder of that test's full bundle on the grading machine;
``lang``: the course's language, the reports' words, English when absent or not one the judge speaks.)
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from otter.plugins import AbstractOtterPlugin
from otter.test_files.abstract_test import TestCaseResult
from otter.test_files.exception_test import ExceptionTestFile

from judge.i18n import messages as m
from judge.platforms.course_language import at_run
from judge.platforms.notebook_grading import GRADED_OUTSIDE_ENV, OTTER_PLUGIN, Graded, grade_saved

PLUGIN = OTTER_PLUGIN
NOTE = m.PK_OTTER_NOTE


class JudgePlugin(AbstractOtterPlugin):
    """Grades the configured judge tests outside otter's kernel (see the module's docstring)."""

    def __init__(self, submission_path: str, submission_metadata: dict, plugin_config: dict) -> None:
        super().__init__(submission_path, submission_metadata, plugin_config)
        self._graded: dict[str, Graded] = {}
        self._tests: dict[str, Any] = {}

    def _bundles(self) -> dict[str, str]:
        bundles = (self.plugin_config or {}).get("bundles") or {}
        if not isinstance(bundles, dict):
            raise ValueError(f"{PLUGIN}: 'bundles' must map otter test names to bundle folders")
        return {str(k): str(v) for k, v in bundles.items()}

    def before_execution(self, submission: Any) -> Any:
        """Grade the submission as otter read it from its file, before otter's kernel runs any of it."""
        os.environ[GRADED_OUTSIDE_ENV] = "1"  # the kernel's own judge test would be discarded: it skips its run
        tests = Path(self.submission_path).parent / "tests"
        if isinstance(submission, str):  # a .py submission: one cell
            cells = [{"cell_type": "code", "source": submission}]
        else:
            cells = [dict(cell) for cell in submission.get("cells", [])]
        language = at_run((self.plugin_config or {}).get("lang"), f"otter_config.json ({PLUGIN}: lang)")
        if language.problem:
            print(f"numpy-judge: {language.problem}", file=sys.stderr)
        for name, bundle in self._bundles().items():
            path = tests / f"{name}.py"
            if path.is_file():
                self._tests[name] = ExceptionTestFile.from_file(str(path))  # read now: the kernel can write that folder
            self._graded[name] = grade_saved(cells, bundle, Path(bundle).name, note=NOTE, lang=language.lang)
        return submission

    def after_grading(self, results: Any) -> None:
        """Replace what the kernel said about each judge test with the grade computed before it ran."""
        for name, graded in self._graded.items():
            test = self._tests.get(name)
            if test is None:
                continue
            passed = graded.status == "accepted"
            test.test_case_results = [TestCaseResult(test_case=case, message=graded.report, passed=passed)
                                      for case in test.test_cases]
            test._score = None
            results.results[name] = test
