"""Notebooks, where numpy is learned: a learner's ``.ipynb`` graded by the functions it defines.

What is graded is what a kernel would hold after running the notebook top to bottom, restricted to what the
bundle's functions need: :mod:`.read` turns the file into code cells (leniently: Jupyter, JupyterLab, Colab and
VS Code shapes, nbformat 4.0 to 4.5, outputs never read), :mod:`.ipython` turns IPython syntax into Python or
skips a cell that is not Python, :mod:`.extract` keeps the statements the required functions reach and writes
them as one file with, for each of its lines, the cell and line it came from (:class:`.extract.SourceMap`,
which rewrites "line N" in a verdict's texts as "cell C, line M").

A submitted file is a notebook by its name, or by its content when it has none (:mod:`.submitted`, the one
door every grading path takes), and is read in a child process with limits (:mod:`.child`): reading is linear
in the notebook's size, and whatever a learner sends it ends as a graded source or one line saying why not.

Only the standard library here: a cold ``judge grade answer.ipynb`` extracts before the grading side is
imported (:mod:`judge.grading.run_plan`).
"""

from judge.notebooks.extract import GradedSource, NotebookProblem, SourceMap, graded_source, looks_like_notebook
from judge.notebooks.submitted import ReaderFailed, Submitted, read_submission

__all__ = ["GradedSource", "NotebookProblem", "ReaderFailed", "SourceMap", "Submitted", "graded_source",
           "looks_like_notebook", "read_submission"]
