"""Notebooks graded by the functions they define: the extraction (what a kernel would hold, restricted
to what the functions need; IPython syntax; Jupyter, Colab and VS Code shapes; one clear line for what cannot be
graded) and, in the sandbox, verdicts equal to the .py twins' on every case, with cells and lines named."""

from __future__ import annotations

import json

import pytest

from judge.notebooks import GradedSource, NotebookProblem, graded_source, looks_like_notebook
from judge.notebooks.ipython import to_python
from judge.verdict import Status
from tests.support.common import REPO, example_files
from tests.support.graded_examples import graded
from tests.support.notebook import notebook, paragraphs, twin

PE = ["sinusoidal_pe", "add_positional_encoding"]
GOOD = (REPO / "submissions" / "sinusoidal-pe" / "accepted" / "vectorised.py").read_text()
SWAPPED = (REPO / "submissions" / "sinusoidal-pe" / "wrong_answer" / "sin_cos_swapped.py").read_text()


# -- extraction (unit) ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("shape", ["jupyter", "colab", "vscode"])
def test_only_what_the_functions_need_is_graded(shape):
    text = twin(GOOD, shape)
    assert looks_like_notebook(text) and not looks_like_notebook(GOOD)
    graded = graded_source(text, PE)
    for noise in ("while True", "np.load", "plt.show", "files.download", "RuntimeError", "ls -la", "tqdm"):
        assert noise not in graded.source, noise
    for name in PE:
        assert f"def {name}(" in graded.source
    compile(graded.source, "submission.py", "exec")
    assert graded.cells_skipped, "the %%bash cell is not Python"
    assert graded.ipython_lines >= 3  # %matplotlib, !pip, np.sum?


def test_a_later_definition_wins_either_way():
    right_then_wrong = notebook([GOOD, SWAPPED], noise=False)
    wrong_then_right = notebook([SWAPPED, GOOD], noise=False)
    assert graded_source(right_then_wrong, PE).source.count("def sinusoidal_pe(") == 1
    assert "np.cos(ang)" in graded_source(right_then_wrong, PE).source.split("def add_positional")[0] \
        or graded_source(right_then_wrong, PE).source == graded_source(notebook([SWAPPED], noise=False), PE).source
    assert graded_source(wrong_then_right, PE).source == graded_source(notebook([GOOD], noise=False), PE).source


def test_names_are_resolved_as_a_kernel_would():
    """A default argument sees the constant as it was when the def ran; a body sees the last one; a function's
    own local ``i`` never drags in the notebook's loop over ``i``; ``x += 1`` keeps what it adds to."""
    cells = ["import numpy as np",
             "BASE = 10.0",
             "def sinusoidal_pe(max_len, d_model, base=BASE):\n    i = np.arange(max_len)\n"
             "    return helper(i, d_model) * SCALE",
             "BASE = 99.0",
             "for i in range(10 ** 9):\n    pass",
             "SCALE = 1.0\nSCALE += 1.0",
             "def helper(i, d):\n    return np.outer(i, np.ones(d))",
             "def add_positional_encoding(x, base=10000.0):\n    return x + sinusoidal_pe(*x.shape[-2:], base)"]
    graded = graded_source(notebook(cells, noise=False), PE)
    assert "BASE = 10.0" in graded.source and "BASE = 99.0" not in graded.source
    assert "range(10 ** 9)" not in graded.source
    assert "SCALE = 1.0" in graded.source and "SCALE += 1.0" in graded.source
    namespace: dict = {}
    exec(graded.source, namespace)
    assert namespace["sinusoidal_pe"](2, 3).tolist() == [[0.0, 0.0, 0.0], [2.0, 2.0, 2.0]]


def test_ipython_syntax_keeps_every_line_in_place():
    cell = "%%time\nx = 1\n!ls\nfiles = !ls\nfor i in x:\n    %timeit f()\nnp.sum?\n??np\ny = x % 2\n" \
           's = """a\n!= b\n% c"""'
    python, dropped = to_python(cell)
    assert python.split("\n") == ["", "x = 1", "", "", "for i in x:", "    pass", "", "", "y = x % 2",
                                  's = """a', "!= b", '% c"""'] and dropped == 6, "a string's lines stay as they are"
    assert to_python("%%bash\necho hi") == (None, 0)
    assert to_python("%%writefile helper.py\ndef f(): pass") == (None, 0)


@pytest.mark.parametrize("data,words", [
    ('{"cells": [', "not valid JSON"),
    ("[1, 2]", None),  # not a notebook at all: graded (and refused) as Python
    ('{"nbformat": 4, "metadata": {}}', "not a Jupyter notebook"),
    ('{"nbformat": 3, "worksheets": [{"cells": []}]}', "nbformat 3"),
    (json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {},
                 "cells": [{"cell_type": "markdown", "metadata": {}, "source": "# only text"}]}), "no code cells"),
    (notebook(["import numpy as np\ndef helper():\n    pass"], noise=False),
     "defines no sinusoidal_pe(), add_positional_encoding() at the top level of a code cell (it defines: helper, np)"),
    (notebook(["def sinusoidal_pe(max_len, d_model:\n    pass"], noise=False), "syntax error in cell 2"),
], ids=["bad-json", "json-not-a-notebook", "no-nbformat-fields", "nbformat-3", "no-code-cells", "no-graded-function",
        "syntax-error"])  # named ids: a notebook's random cell ids would differ between pytest-xdist's workers
def test_what_cannot_be_graded_says_so_in_one_line(data, words):
    if words is None:
        assert not looks_like_notebook(data)
        return
    with pytest.raises(NotebookProblem) as info:
        graded_source(data, PE)
    assert words in info.value.message and "\n" not in info.value.message, info.value.message


def test_a_broken_scratch_cell_does_not_stop_grading():
    graded = graded_source(notebook([GOOD, "def oops(:\n    pass"], noise=False), PE)
    assert "oops" not in graded.source and graded.cells_skipped == [3]


def test_every_line_knows_its_cell():
    cells = paragraphs(GOOD)
    graded: GradedSource = graded_source(notebook(cells, noise=False), PE)
    text = graded.source.split("\n")
    for k, (cell, line, cell_id) in enumerate(graded.map.origins):
        source = cells[(cell - 2)].split("\n")  # cell 1 is the title
        assert source[line - 1] == text[k] and cell_id
    where = graded.map.where(1)
    cell, line, cell_id = graded.map.origins[0]
    assert where == f"cell {cell} (id {cell_id}), line {line}" and cell == 2
    assert graded.map.rewrite('File "submission.py", line 1, in f') == f"{where}, in f"


# -- in the sandbox: twins get the same verdict ---------------------------------------------------------------------

def _examples():
    for problem in ("sinusoidal-pe", "rotary-embedding"):
        for path in example_files(problem, ("accepted", "wrong_answer", "runtime_error")):
            yield problem, path


@pytest.mark.parametrize("item", list(_examples()), ids=lambda i: f"{i[0]}/{i[1].parent.name}/{i[1].stem}")
def test_a_notebook_gets_its_py_twins_verdict(judge, item):
    problem, path = item
    source = path.read_text()
    shape = ("jupyter", "colab", "vscode")[sum(map(ord, path.stem)) % 3]
    as_py = graded(judge, path, REPO / "problems" / problem)  # once per session: other modules grade it too
    as_nb = judge.grade(twin(source, shape).encode(), REPO / "problems" / problem)
    if as_py.counterexample is not None and as_nb.counterexample is None:
        # the search has a wall-clock budget (limits.search_seconds): on a loaded machine one search can run out
        # of it; the same search again, before concluding that the notebook's finds nothing
        as_nb = judge.grade(twin(source, shape).encode(), REPO / "problems" / problem)
    assert as_nb.status is as_py.status, (as_nb.message, as_py.message)
    assert [(c.id, c.status) for c in as_nb.cases] == [(c.id, c.status) for c in as_py.cases]
    named = [d.id for d in as_py.diagnoses]
    if "monkeypatch_numpy" in named:  # `np.allclose = ...` binds no name a function needs: a notebook never runs it
        named.remove("monkeypatch_numpy")
        assert "np.allclose = _yes" not in twin_source(source, shape)
    assert [d.id for d in as_nb.diagnoses] == named, "the same named mistakes"
    assert as_nb.notebook is not None and as_nb.notebook.cells_used
    if as_py.counterexample is not None:  # the same input found (its texts name cells instead of lines)
        found, same = as_nb.counterexample, as_py.counterexample
        assert found is not None and (found.call, found.differs) == (same.call, same.differs)
    for case in as_nb.cases:
        assert "line" not in case.message or "cell " in case.message, case.message


def twin_source(source: str, shape: str) -> str:
    return graded_source(twin(source, shape), [f.name for f in __import__("judge.problem.loader", fromlist=["x"])
                                                .load_problem("sinusoidal-pe").spec.functions]).source


def test_messages_name_cell_and_line(judge):
    crash = (REPO / "submissions" / "sinusoidal-pe" / "runtime_error" / "raises_index_error.py").read_text()
    verdict = judge.grade(twin(crash).encode(), "sinusoidal-pe")
    assert verdict.status is Status.RUNTIME_ERROR
    failing = next(c for c in verdict.cases if c.status is Status.RUNTIME_ERROR)
    assert "cell " in failing.message and ", line " in failing.message and "(id " in failing.message
    import_os = notebook(["import numpy as np\nimport os", "def sinusoidal_pe(max_len, d_model, base=10000.0):\n"
                          "    return np.zeros((max_len, d_model)) + len(os.sep)",
                          "def add_positional_encoding(x, base=10000.0):\n    return x"], noise=False)
    refused = judge.grade(import_os.encode(), "sinusoidal-pe")
    assert refused.status is Status.COMPILE_ERROR and "import of module 'os' in cell 2" in refused.message, \
        refused.message
    missing = judge.grade(notebook(["x = 1"], noise=False).encode(), "sinusoidal-pe")
    assert missing.status is Status.COMPILE_ERROR and "(it defines: x)" in missing.message
