"""A notebook's verdict speaks of cells: every "line N" of the graded file named "cell C, line M".

The sandbox and the judge see one file (the statements :mod:`judge.notebooks.extract` kept); the learner wrote
cells.  After grading, every text of the verdict that can name a line -- the verdict's message, each case's
message and output, what was printed, the diagnosis, the counterexample -- is rewritten with the notebook's
:class:`~judge.notebooks.extract.SourceMap`.
"""

from __future__ import annotations

from judge.i18n.catalog import map_texts
from judge.notebooks import GradedSource
from judge.verdict import CallOutput, NotebookSource, Verdict

#: How many cell numbers the verdict lists as used or skipped (a notebook may have tens of thousands of cells).
CELLS_LISTED = 100


def _output(out: CallOutput | None, rewrite) -> None:  # noqa: ANN001
    if out is not None:
        out.stdout, out.stderr = rewrite(out.stdout), rewrite(out.stderr)


def name_cells(verdict: Verdict, notebook: GradedSource) -> Verdict:
    """``verdict`` with the notebook's cells named wherever a line is, and ``verdict.notebook`` set."""
    rewrite = notebook.map.rewrite
    verdict.message = rewrite(verdict.message)
    verdict.said = map_texts(verdict.said, rewrite)
    for case in verdict.cases:
        case.message = rewrite(case.message)
        case.said = map_texts(case.said, rewrite)
        _output(case.output, rewrite)
    verdict.stdout.text = rewrite(verdict.stdout.text)
    verdict.stderr.text = rewrite(verdict.stderr.text)
    _output(verdict.load_output, rewrite)
    for diagnosis in verdict.diagnoses:
        diagnosis.message = rewrite(diagnosis.message)
        if diagnosis.evidence:
            diagnosis.evidence = rewrite(diagnosis.evidence)
    if verdict.counterexample is not None:
        verdict.counterexample.got_text = rewrite(verdict.counterexample.got_text)
        verdict.counterexample.message = rewrite(verdict.counterexample.message)
        verdict.counterexample.said = map_texts(verdict.counterexample.said, rewrite)
        verdict.counterexample.got_said = map_texts(verdict.counterexample.got_said, rewrite)
    verdict.notebook = NotebookSource(cells_used=notebook.cells_used[:CELLS_LISTED],
                                      cells_skipped=notebook.cells_skipped[:CELLS_LISTED],
                                      ipython_lines=notebook.ipython_lines)
    return verdict
