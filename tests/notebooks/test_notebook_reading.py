"""Reading a learner's notebook is linear and bounded, and whatever the file holds it ends as a graded source or
one line saying why not: the attacker's shapes of tests/support/notebook_shapes.py at the service's 1 MiB body limit,
JSON Python's reader cannot take, cell ids nbformat does not allow, a .py that looks like JSON, and the reader's
own limits (CPU, wall time, memory).  Speed itself is measured by bench/notebook_extract.py."""

from __future__ import annotations

import ast
import io
import json
import tokenize
from pathlib import Path

import pytest

from judge.notebooks import GradedSource, NotebookProblem, graded_source, read_submission
from judge.notebooks.extract import REWRITE_GROWTH, SourceMap, _flat_names, _line_groups, _scoped_names
from judge.notebooks.ipython import logical_starts, to_python
from judge.notebooks.read import MAX_CODE_CHARS, read_cells
from judge.notebooks.submitted import ReaderLimits
from tests.support.notebook_shapes import GOOD, REQUIRED, SHAPES, answered, long_id, many_cells

REPO = Path(__file__).resolve().parents[2]
MIB = 1 << 20
#: Far above what any shape takes (well under a second of CPU each), far below "never": a reader that had not
#: answered by then is the quadratic one.
PATIENCE = 120.0


def _read(data: str | bytes, name: str | None = "answer.ipynb", limits: ReaderLimits | None = None):
    """read_submission, answered within PATIENCE seconds."""
    return answered(lambda: read_submission(data, REQUIRED, name, **({"limits": limits} if limits else {})),
                    PATIENCE)


def _graded_functions(source: str) -> set[str]:
    return {n.name for n in ast.parse(source).body if isinstance(n, ast.FunctionDef)}


# -- every shape, at the body limit ---------------------------------------------------------------------------------

@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_every_shape_at_the_body_limit_is_read(shape):
    build, verdict = SHAPES[shape]
    submitted = _read(build(MIB))
    if verdict == "compile_error":
        assert submitted.refused and "\n" not in submitted.refused and len(submitted.refused) < 300, submitted
        return
    assert not submitted.refused, submitted.refused
    assert set(REQUIRED) <= _graded_functions(submitted.source)
    assert submitted.notebook is not None and submitted.notebook.map.origins


def test_magics_by_the_hundred_thousand_are_each_left_out():
    submitted = _read(SHAPES["bare_magics"][0](MIB))
    assert submitted.notebook.ipython_lines > 300_000 and "%" not in submitted.source


def test_thousands_of_cells_all_needed_are_all_kept():
    data = many_cells(MIB)
    submitted = _read(data)
    cells = sum(1 for c in json.loads(data)["cells"] if c["source"] == "hits += 1")
    assert cells > 5000 and submitted.source.count("hits += 1") == cells


# -- cell ids and the texts they enter ------------------------------------------------------------------------------

@pytest.mark.parametrize("cell_id,kept", [
    ("a" * 64, True), ("4f3c-9_Z", True), ("a" * 65, False), ("i" * 250_000, False), ("", False),
    ("has space", False), ("línea", False), ("x\ny", False), ("id(1)", False), (7, False), (["a"], False),
    (None, False)])
def test_only_nbformat_cell_ids_are_kept(cell_id, kept):
    data = json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {},
                       "cells": [{"cell_type": "code", "id": cell_id, "metadata": {}, "outputs": [],
                                  "source": GOOD}]})
    cell = read_cells(data)[0]
    assert cell.id == (cell_id if kept else None)
    graded = graded_source(data, REQUIRED)
    assert all(origin_id == cell.id for _, _, origin_id in graded.map.origins)


def test_naming_cells_grows_a_text_by_a_bounded_amount():
    assert graded_source(long_id(4096), REQUIRED).map.origins[0][2] is None, "a 4 KiB id is dropped"
    named = SourceMap([(3, k, "a" * 64) for k in range(1, 30)])
    text = "on line 2 " * 4000
    assert len(named.rewrite(text)) <= len(text) + REWRITE_GROWTH
    assert named.rewrite("on line 2")[:9] == "in cell 3" and "(id " + "a" * 64 + "), line 2" in named.rewrite(
        "on line 2"
    )
    assert named.rewrite("line 99999999999999999999, in f") == "line 99999999999999999999, in f"


# -- JSON Python's reader cannot take, and odd types -----------------------------------------------------------------

def _nb(**fields) -> dict:
    notebook = {"nbformat": 4, "nbformat_minor": 5, "metadata": {},
                "cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "source": GOOD}]}
    notebook.update(fields)
    return notebook


ODD = {
    "5,000-digit nbformat_minor": json.dumps(_nb()).replace('"nbformat_minor": 5', '"nbformat_minor": ' + "9" * 5000),
    "a 5,000-digit execution count": json.dumps(_nb()).replace('"metadata": {}, "outputs"',
                                                               '"execution_count": -' + "1" * 5000 + ', "outputs"'),
    "metadata nested 100,000 deep": json.dumps(_nb(metadata="@")).replace('"@"', "[" * 100_000 + "]" * 100_000),
    "an object nested 5,000 deep": json.dumps(_nb(metadata="@")).replace('"@"', '{"a":' * 5000 + "1" + "}" * 5000),
    "UTF-16 with its BOM": json.dumps(_nb()).encode("utf-16"),
    "Latin-1 bytes": json.dumps(_nb()).replace("positions", "posici\u00f3n").encode("latin-1"),
    "cells is a dict": json.dumps(_nb(cells={"0": {"cell_type": "code", "source": GOOD}})),
    "cells is a string": json.dumps(_nb(cells="def sinusoidal_pe(): pass")),
    "a cell is a list": json.dumps(_nb(cells=[["code", GOOD]])),
    "source is a number": json.dumps(_nb(cells=[{"cell_type": "code", "source": 12}])),
    "source lines are mixed": json.dumps(_nb(cells=[{"cell_type": "code", "source": [GOOD, 3, None, {"a": 1}]}])),
    "cell_type is a list": json.dumps(_nb(cells=[{"cell_type": ["code"], "source": GOOD}])),
    "nbformat is true": json.dumps(_nb(nbformat=True)),
    "nbformat is a long string with worksheets": json.dumps(_nb(nbformat="3" * 100_000, worksheets=[])),
    "nbformat is -5": json.dumps(_nb(nbformat=-5)),
    "a lone surrogate in the source": json.dumps(_nb(cells=[{"cell_type": "code", "source": GOOD + "\n# \ud800"}])),
    "a null character in the source": json.dumps(_nb(cells=[{"cell_type": "code", "source": GOOD + "\0"}])),
    "NaN and Infinity": json.dumps(_nb(metadata={"a": float("nan"), "b": float("inf")})),
    "a top-level list": json.dumps([_nb()]),
    "more code than a notebook holds": json.dumps(_nb(cells=[{"cell_type": "code", "source": GOOD},
                                                             {"cell_type": "code",
                                                              "source": "#" * (MAX_CODE_CHARS + 1)}])),
}


@pytest.mark.parametrize("case", sorted(ODD))
def test_a_notebook_the_reader_cannot_take_is_one_line_never_an_exception(case):
    data = ODD[case]
    submitted = _read(data)
    if submitted.refused:
        assert "\n" not in submitted.refused and len(submitted.refused) < 300, submitted.refused
        assert "Traceback" not in submitted.refused and "set_int_max_str_digits" not in submitted.refused
    else:
        assert set(REQUIRED) <= _graded_functions(submitted.source)


@pytest.mark.parametrize("case,words", [
    ("5,000-digit nbformat_minor", "a number of 5000 digits"),
    ("metadata nested 100,000 deep", "nests lists or objects deeper"),
    ("Latin-1 bytes", "not UTF-8"),
    ("nbformat is a long string with worksheets", "nbformat 3,"),
    ("more code than a notebook holds", f"more than {MAX_CODE_CHARS} characters"),
])
def test_what_stops_the_reader_is_named(case, words):
    assert words in _read(ODD[case]).refused


# -- a file is a notebook by its name, or by parsing as one ---------------------------------------------------------

JSON_FIRST_LINE = '{"cells": "a dict literal, not a notebook"}["cells"]\n' + GOOD


@pytest.mark.parametrize("name", ["answer.py", None, "-", "answer"])
def test_a_python_file_whose_first_line_looks_like_json_is_python(name):
    submitted = _read(JSON_FIRST_LINE, name)
    assert submitted.notebook is None and not submitted.refused and submitted.source == JSON_FIRST_LINE


def test_by_name_a_notebook_is_a_notebook_and_a_py_is_python():
    notebook = SHAPES["honest_colab"][0](100_000)
    assert _read(JSON_FIRST_LINE, "answer.ipynb").refused.startswith("the notebook is not valid JSON")
    assert _read(notebook, "answer.py").notebook is None
    assert _read(notebook, "ANSWER.IPYNB").notebook is not None
    assert _read(notebook, None).notebook is not None, "without a name, a file that parses as a notebook is one"
    trailing_comma = notebook.rstrip().removesuffix("}") + ",}"
    assert _read(trailing_comma, None).refused.startswith("the notebook is not valid JSON: Expecting property name"), \
        "JSON Python forgives is still a broken notebook"
    broken = notebook[: len(notebook) // 2]
    refused = _read(broken, None).refused
    assert refused.startswith("the notebook is not valid JSON: Unterminated string starting at line "), \
        "a notebook cut short is a broken notebook, not Python"


# -- the reader's limits --------------------------------------------------------------------------------------------

def test_the_reader_stops_at_its_cpu_limit():
    floats = json.dumps(_nb(metadata={"x": [1.5] * (15 << 20)}), separators=(",", ":"))
    refused = _read(floats, limits=ReaderLimits(cpu_seconds=1, wall_seconds=120, memory_bytes=4 << 30)).refused
    assert refused.startswith("reading the notebook took more than 1 s of CPU time"), refused


def test_a_notebook_of_pictures_near_the_file_limit_is_read_within_the_default_limits():
    submitted = _read(SHAPES["honest_colab"][0](60 * MIB))
    assert not submitted.refused and set(REQUIRED) <= _graded_functions(submitted.source)


def test_the_reader_stops_at_its_memory_limit():
    lists = json.dumps(_nb(metadata={"x": [[]] * (4 << 20)}))
    refused = _read(lists, limits=ReaderLimits(memory_bytes=192 << 20)).refused
    assert "in the memory allowed" in refused, refused


def test_the_reader_stops_at_its_wall_limit():
    refused = _read(SHAPES["honest_colab"][0](10_000), limits=ReaderLimits(wall_seconds=0.001)).refused
    assert refused.startswith("reading the notebook took longer than 0.001 s"), refused


# -- the fast paths agree with Python's own tokenizer and scope analysis --------------------------------------------

def _corpus() -> list[str]:
    files = sorted(REPO.glob("judge/**/*.py")) + sorted(REPO.glob("submissions/**/*.py")) + \
        sorted(REPO.glob("tests/**/*.py"))
    tricky = ['s = """a\n!= b\n% c"""\n', "x = (1,\n% 2)\n", "y = 'a\\\nb'\n", "z = 1 + \\\n  2\n",
              "t = r'\\'' # (\n", "u = f'{a!r:>{w}}' '''\n'''\n", "v = [\n  '#',  # ]\n]\n"]
    return [p.read_text() for p in files] + tricky


def _tokenizers_starts(text: str) -> dict[int, bool]:
    """For each row where a token starts or a string goes on: whether a logical line starts there, by tokenize."""
    rows: dict[int, bool] = {}
    previous, depth = None, 0
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type in (tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER):
            continue
        rows.setdefault(token.start[0], previous in (None, tokenize.NEWLINE, tokenize.NL) and depth == 0)
        for row in range(token.start[0] + 1, token.end[0] + 1):
            rows[row] = False  # the lines a string goes on over
        if token.type == tokenize.OP and token.string in "([{":
            depth += 1
        elif token.type == tokenize.OP and token.string in ")]}":
            depth -= 1
        previous = token.type
    return rows


def test_logical_line_starts_are_the_tokenizers():
    checked = 0
    for text in _corpus():
        try:
            expected = _tokenizers_starts(text)
        except (tokenize.TokenError, SyntaxError):  # a compile_error example: the tokenizer stops too
            continue
        mine = logical_starts(text.split("\n"))
        for row, start in expected.items():
            assert mine[row - 1] == start, (row, text.split("\n")[row - 1])
            checked += 1
    assert checked > 10_000


def test_ipython_lines_inside_strings_and_brackets_stay():
    cell = 'x = (1,\n% 2)\n%time f()\nfiles = !ls\ns = """\n!ls\n"""\nnp.sum?'
    python, dropped = to_python(cell)
    assert python.split("\n") == ["x = (1,", "% 2)", "", "", 's = """', "!ls", '"""', ""] and dropped == 3


SCOPED = ["class C(Base, metaclass=M):\n    x = y\n    def f(self):\n        return z + x\n",
          "f = lambda a=d: [b for b in a if (w := b)]\n",
          "def g():\n    global G\n    G = 1\n    def h():\n        nonlocal_ = G\n"]


def _statements(texts: list[str]):
    """(the statement's source, its nodes) for every top-level statement of ``texts`` that parse."""
    for text in texts:
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        lines = text.split("\n")
        for first, last, nodes in _line_groups(tree.body):
            yield "\n".join(lines[first - 1:last]), nodes


def _public_symtable(source: str) -> tuple[set[str], set[str], set[str]]:
    """What the symtable module's own objects say a statement binds, reads, and reads later as a global."""
    import symtable

    table = symtable.symtable(source, "cell", "exec")
    binds = {s.get_name() for s in table.get_symbols() if s.is_assigned() or s.is_imported() or s.is_namespace()}
    reads = {s.get_name() for s in table.get_symbols() if s.is_referenced()}
    later: set[str] = set()
    todo = list(table.get_children())
    while todo:
        child = todo.pop()
        later |= {s.get_name() for s in child.get_symbols() if s.is_referenced() and
                  (s.is_global() or (child.get_type() == "class" and not s.is_local()))}
        todo.extend(child.get_children())
    return binds, reads, later


def test_names_read_off_the_tree_are_symtables():
    flat = [(source, names) for source, nodes in _statements(_corpus()) if (names := _flat_names(nodes))]
    for source, names in flat:
        assert (*names, set()) == _public_symtable(source), source
    assert len(flat) > 1000


def test_names_read_off_the_raw_symbol_tables_are_the_symtable_modules():
    scoped = [source for source, nodes in _statements(_corpus() + SCOPED) if _flat_names(nodes) is None]
    for source in scoped:
        assert _scoped_names(source) == _public_symtable(source), source
    assert len(scoped) > 500


def test_graded_source_raises_only_notebook_problems():
    for data in ODD.values():
        try:
            result = graded_source(data, REQUIRED)
        except NotebookProblem:
            continue
        assert isinstance(result, GradedSource)
