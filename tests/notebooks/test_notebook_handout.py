"""The notebook hand-out (`judge package notebook`) and `check()` in a real kernel.

The hand-out is written outside the checkout; the folder is scanned for anything that would let a learner
compute the answer or see a hidden case; every example graded against the hand-out gets, on the public cases,
what it gets against the full bundle; and the starter notebook, with an answer typed into its stub cells, runs
top to bottom in an ipykernel (nbclient), its check cell showing the report in HTML.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from judge.cli import main
from tests.support.common import PROBLEM_DIR, REPO, SUBMISSIONS, example_files, require_sandbox, unavailable
from tests.support.graded_examples import graded

ROTARY = REPO / "problems" / "rotary-embedding"


def _package(problem: Path, out: Path) -> Path:
    result = CliRunner().invoke(main, ["package", "notebook", str(problem), "-o", str(out)])
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture(scope="module")
def handout(tmp_path_factory) -> Path:
    return _package(PROBLEM_DIR, tmp_path_factory.mktemp("course") / "week-2")


def _hidden_cases(problem: Path) -> list[dict]:
    import yaml

    doc = yaml.safe_load((problem / "cases.yaml").read_text())
    return [c for c in doc["cases"] if c.get("visibility", "hidden") != "public"]


def _code_lines(path: Path) -> list[str]:
    """The reference's and the mistakes module's statements worth searching for (longer than trivial lines; the
    signatures are public: the statement shows them)."""
    return [line.strip() for line in path.read_text().splitlines()
            if len(line.strip()) > 24 and not line.strip().startswith(("#", '"""', "import ", "from ", "def "))]


@pytest.mark.parametrize("problem", [PROBLEM_DIR, ROTARY], ids=["sinusoidal-pe", "rotary-embedding"])
def test_the_handout_holds_nothing_that_computes_the_answer_or_shows_a_hidden_case(tmp_path, problem):
    out = _package(problem, tmp_path / "handout")
    files = [p for p in out.rglob("*") if p.is_file()]
    assert not [p for p in files if p.suffix == ".py"], files
    blobs = {p: p.read_bytes() for p in files}
    texts = {p: b.decode("utf-8", "replace") for p, b in blobs.items()}
    hidden = _hidden_cases(problem)
    assert hidden, "the bundle has hidden cases to keep"
    for case in hidden:
        # ids are searched as whole words: a hidden id may be a prefix of a public one
        pattern = re.compile(rf"(?<![\w-]){re.escape(case['id'])}(?![\w-])")
        leaks = [str(p) for p, t in texts.items() if pattern.search(t) or case["id"] in p.name]
        assert not leaks, (case["id"], leaks)
    for module in ("reference.py", "mistakes.py"):
        for line in _code_lines(problem / module):
            assert not [p for p, t in texts.items() if line in t], (module, line)
    spec = (out / problem.name / "problem.yaml").read_text()
    assert "domain:" not in spec and "reference_checks" not in spec and "reference:" not in spec
    assert f"hidden_cases: {len(hidden)}" in spec
    # every recorded output answers a public case's inputs, and there are no others
    index = json.loads((out / problem.name / "recorded" / "index.json").read_text())
    import yaml

    public = [
        c for c in yaml.safe_load((problem / "cases.yaml").read_text())["cases"] if c.get("visibility") == "public"
    ]
    assert sum(len(v) for v in index["reference"].values()) == len(public)
    for p in files:
        if p.suffix == ".npy":
            np.load(p, allow_pickle=False)  # plain arrays, never pickles
    import nbformat

    starter = nbformat.read(out / f"{problem.name}.ipynb", as_version=4)
    nbformat.validate(starter)
    code = [c.source for c in starter.cells if c.cell_type == "code"]
    assert any("raise NotImplementedError" in c for c in code) and "check(" in code[-1]


def test_a_handout_is_refused_as_a_full_bundle_and_edits_are_clear_errors(handout, tmp_path):
    again = CliRunner().invoke(main, ["package", "notebook", str(handout / "sinusoidal-pe"), "-o", str(tmp_path)])
    assert again.exit_code != 0 and "already a hand-out" in again.output and "Traceback" not in again.output
    broken = tmp_path / "broken"
    import shutil

    shutil.copytree(handout / "sinusoidal-pe", broken)
    (broken / "recorded" / "index.json").write_text("{not json")
    result = CliRunner().invoke(main, ["grade", "-p", str(broken), str(SUBMISSIONS / "accepted" / "vectorised.py")])
    assert result.exit_code != 0 and "index.json" in result.output and "Traceback" not in result.output


def _examples() -> list[Path]:
    return sorted(example_files("sinusoidal-pe", ("accepted", "wrong_answer", "runtime_error"), (".py", ".ipynb")))


def test_every_example_gets_on_the_public_cases_what_the_full_bundle_gives(handout, judge):
    require_sandbox()
    bundle = handout / "sinusoidal-pe"
    compared = 0
    for example in _examples():
        source = example.read_bytes()
        full = graded(judge, example, PROBLEM_DIR)  # once per session: other modules grade the examples too
        cut = judge.grade(source, bundle)
        public = {c.id: c.status for c in full.cases if c.visibility == "public"}
        if full.status.value == "compile_error":
            assert cut.status == full.status, example.name
            continue
        assert {c.id: c.status for c in cut.cases} == public, example.name
        # a mistake named on the hand-out reproduces its public cases: it is one the full bundle can name too
        named = {d.id for d in full.diagnoses} | {"not_ndarray", "non_finite", "input_mutated", "transposed",
                                                  "float32_precision", "constant_output", "extra_leading_axis"}
        assert {d.id for d in cut.diagnoses if d.explains} <= named, example.name
        compared += 1
    assert compared >= 20


# -- check() in a kernel -----------------------------------------------------------------------------------------
ANSWER = '''def sinusoidal_pe(max_len, d_model, base=10000.0):
    """The table."""
    pos = np.arange(max_len)[:, None]
    pairs = d_model // 2
    w = pos / base ** (2 * np.arange(pairs) / d_model)
    pe = np.zeros((max_len, d_model))
    pe[:, 0:2 * pairs:2] = {first}(w)
    pe[:, 1:2 * pairs:2] = {second}(w)
    return pe'''
ADD = '''def add_positional_encoding(x, base=10000.0):
    x = np.asarray(x)
    return x + sinusoidal_pe(x.shape[-2], x.shape[-1], base)'''


def _kernel_run(handout: Path, answers: list[str], extra_cells: list[str] = (), after: list[str] = (),
                locale: str | None = None) -> tuple[list, Path]:
    """Run the hand-out's starter notebook in a real kernel, its stubs filled with ``answers``: ``extra_cells``
    before its check cell, ``after`` after it; ``locale``: the kernel's LC_ALL and LANG (e.g. fr_FR.UTF-8)."""
    try:
        import nbformat
        from nbclient import NotebookClient
    except ImportError as exc:  # the test extra installs them
        unavailable(f"nbclient/nbformat missing ({exc}): pip install '.[test]'")
    path = handout / "sinusoidal-pe.ipynb"
    nb = nbformat.read(path, as_version=4)
    stubs = [c for c in nb.cells if c.cell_type == "code" and "raise NotImplementedError" in c.source]
    for cell, answer in zip(stubs, answers, strict=True):
        cell.source = answer
    check = nb.cells.pop()
    nb.cells += [nbformat.v4.new_code_cell(c) for c in extra_cells] + [check]
    nb.cells.append(
        nbformat.v4.new_code_cell("print(verdict.status.value, verdict.isolation.mode, len(verdict.cases))")
    )
    nb.cells += [nbformat.v4.new_code_cell(c) for c in after]
    previous = os.environ.get("PYTHONPATH")
    env = {"PYTHONPATH": str(REPO) + (os.pathsep + previous if previous else "")}
    if locale is not None:  # the kernel's own: gettext's order, LANGUAGE and LC_MESSAGES left unset
        env.update(LANGUAGE=None, LC_ALL=locale, LC_MESSAGES=None, LANG=locale)
    saved = {name: os.environ.get(name) for name in env}
    for name, value in env.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
    try:
        NotebookClient(nb, timeout=180, kernel_name="python3", resources={"metadata": {"path": str(handout)}}).execute()
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    saved = handout / "executed.ipynb"
    nbformat.write(nb, saved)
    return nb.cells, saved


def _html(cells) -> str:
    return "".join(o.get("data", {}).get("text/html", "") for c in cells if c.cell_type == "code" for o in c.outputs)


def _printed(cells) -> str:
    return "".join(
        o.get("text", "") for c in cells if c.cell_type == "code" for o in c.outputs if o.output_type == "stream"
    )


def test_check_in_a_kernel_grades_the_filled_in_starter_notebook(handout):
    require_sandbox()
    cells, _ = _kernel_run(handout, [ANSWER.format(first="np.sin", second="np.cos"), ADD],
                           extra_cells=["%matplotlib inline\n!echo training...", "while False:\n    pass"])
    html = _html(cells)
    assert "accepted" in html and "public cases: 4 of 4 passed; 18 hidden cases run when you submit" in html, html[:800]
    assert "<script" not in html
    assert "accepted full 4" in _printed(cells) or "accepted rootless 4" in _printed(cells), _printed(cells)


def test_check_names_the_mistake_with_its_cell_and_agrees_with_the_saved_notebook(handout, judge):
    require_sandbox()
    cells, saved = _kernel_run(handout, [ANSWER.format(first="np.cos", second="np.sin"), ADD])
    html = _html(cells)
    assert "wrong answer" in html and "public cases: 0 of 4 passed" in html
    assert "sin_cos_swapped" in html and "cells 1, 2, 3" in html, html[:3000]
    assert "data:image/png;base64," in html  # the pictures of failing public cases, inline
    saved_verdict = judge.grade(saved.read_bytes(), handout / "sinusoidal-pe")
    printed = _printed(cells).split()
    assert printed[0] == saved_verdict.status.value == "wrong_answer"
    assert saved_verdict.notebook is not None
    assert [d.id for d in saved_verdict.diagnoses if d.explains][:1] == ["sin_cos_swapped"]


def test_a_runtime_error_in_a_kernel_names_its_cell_and_line(handout):
    require_sandbox()
    broken = "def add_positional_encoding(x, base=10000.0):\n    x = np.asarray(x)\n    return x[..., 99]"
    cells, _ = _kernel_run(handout, [ANSWER.format(first="np.sin", second="np.cos"), broken])
    html = _html(cells)
    assert "runtime error" in html and "IndexError" in html
    assert "cell 3, line 3" in html, html[:3000]


WRONG = ANSWER.format(first="np.cos", second="np.sin")  # sin and cos swapped: a wrong answer, a named mistake
#: The same answer as a script that checks itself, run from the kernel with ``!python``: check()'s text report.
SCRIPT = "%%writefile answer.py\nimport numpy as np\nfrom judge import check\n\n" + WRONG + "\n\n\n" + ADD + \
    "\n\n\ncheck('sinusoidal-pe', pictures=False)\n"


def _outputs(cell, kind: str) -> str:
    return "".join(o.get("data", {}).get("text/html", "") if kind == "html" else o.get("text", "")
                   for o in cell.outputs if kind == "html" or o.output_type == "stream")


@pytest.mark.parametrize("locale", ["fr_FR.UTF-8", "ru_RU.UTF-8"])
def test_check_in_a_kernel_speaks_the_kernels_language(handout, locale):
    """A kernel whose locale is French (Russian) gets check()'s HTML report in French (Russian), and its text
    report in a terminal too (the same answer as a script, run from the kernel); ``check(..., lang=)`` overrides
    the locale: no English sentence in any of them."""
    from tests.support.i18n import english_sentences, html_text

    require_sandbox()
    other = "ru" if locale.startswith("fr") else "fr"
    after = [f"check('sinusoidal-pe', lang='{other}', pictures=False)", SCRIPT, "!python answer.py"] \
        if other == "ru" else []  # one kernel asks for the other language, and runs the script
    cells, _ = _kernel_run(handout, [WRONG, ADD], after=after, locale=locale)
    code = [c for c in cells if c.cell_type == "code"]
    check_cell = next(c for c in code if "verdict = check(" in c.source)
    reports = {locale[:2]: html_text(_outputs(check_cell, "html"))}
    if after:
        reports.update({other: html_text(_outputs(code[-3], "html")), "fr text": _outputs(code[-1], "text")})
    words = {"fr": ("réponse incorrecte", "cas publics réussis : 0 sur 4"),
             "ru": ("неверный ответ", "открытых тестов пройдено: 0 из 4")}
    for lang, text in reports.items():
        assert all(word in text for word in words[lang[:2]]), (lang, text[:3000])
        assert "sin_cos_swapped" in text, (lang, text[:3000])
        assert english_sentences(text, WRONG + ADD) == [], (lang, text[:3000])


def test_check_says_in_one_line_that_a_problem_is_unknown(tmp_path, capsys):
    from judge import check

    answer = tmp_path / "answer.py"
    answer.write_text("import numpy as np\n")
    assert check("no-such-problem", answer) is None
    err = capsys.readouterr().err
    assert err.startswith("check: no-such-problem: unknown problem") and "looked in" in err and "Traceback" not in err
