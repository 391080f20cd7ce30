"""Counterexamples in the real sandbox: every wrong example of both problems gets one, no larger than
the smallest public case it fails, found again identically, and it really fails (the learner's file, graded on
a bundle whose only case is the counterexample, is not accepted there); accepted examples never get one; a
learner's code that loops or blows memory during the search changes nothing in the verdict, what it says there
is shown as its own, and the search ends within its time; ``judge verify`` proposes the smallest case for what
only large cases catch, and its ``judge case add`` line works.  (That no hidden case shapes it:
tests/diagnosis/test_counterexample_invariance.py.)"""

from __future__ import annotations

import json
import shlex
import shutil
from pathlib import Path

import pytest
import yaml

from judge.diagnosis.counterexample.candidates import size_of
from judge.diagnosis.counterexample.search import with_defaults
from judge.verdict import Status
from tests.support.common import REPO, example_files, require_sandbox

PROBLEMS = ("sinusoidal-pe", "rotary-embedding")
FAILING = (Status.WRONG_ANSWER, Status.RUNTIME_ERROR)


def _examples(folders: tuple[str, ...]) -> list[tuple[str, Path]]:
    """The learners' mistakes of both problems (the red team's attack_* files are not mistakes: left out)."""
    return [(problem, path) for problem in PROBLEMS for path in example_files(problem, folders)]


def _id(item) -> str:
    return f"{item[0]}/{item[1].parent.name}/{item[1].stem}"


WRONG = _examples(("wrong_answer", "runtime_error"))
ACCEPTED = _examples(("accepted",))


@pytest.fixture(scope="module")
def judges():
    """Two judges, so that "found again" means another judge with its own workers and caches."""
    require_sandbox()
    from judge import Judge

    with Judge() as first, Judge() as second:
        yield first, second


def _smallest_failing_public(judge, problem: str, verdict, function: str) -> tuple[int, str]:
    """The size of the smallest public case of ``function`` the verdict fails, and its id (a hidden one bounds
    nothing: the search does not know its size)."""
    prepared = judge.problem(REPO / "problems" / problem)
    spec = prepared.bundle.spec.function(function)
    sizes = [(size_of(spec, with_defaults(spec, prepared.inputs.cases[i].values)), c.id)
             for i, c in enumerate(verdict.cases)
             if c.function == function and c.status in FAILING and c.visibility == "public"]
    return min(sizes) if sizes else (10**9, "")


def _one_case_bundle(tmp_path: Path, problem: str, found) -> Path:
    """The bundle with the counterexample as its only case, as `judge case add` writes it (dtype rule included)."""
    from judge.authoring.case_add import dtype_rule
    from judge.problem.loader import load_problem

    root = tmp_path / problem
    shutil.copytree(REPO / "problems" / problem, root, ignore=shutil.ignore_patterns("__pycache__"))
    case = {"id": "counterexample", "function": found.function, "visibility": "public", "args": found.args}
    if found.expected_raises:
        case["raises"] = found.expected_raises
    case.update(dtype_rule(load_problem(root), found.function, found.args))
    cases = yaml.safe_load((root / "cases.yaml").read_text())
    cases["cases"] = [case]
    (root / "cases.yaml").write_text(yaml.safe_dump(cases, sort_keys=False))
    shutil.rmtree(root / "translations", ignore_errors=True)  # they name the cases left out: a load error
    return root


@pytest.mark.parametrize("item", WRONG, ids=_id)
def test_every_wrong_example_gets_a_counterexample_that_really_fails(judges, tmp_path, item):
    problem, path = item
    first, second = judges
    source = path.read_text()
    verdict = first.grade(source, REPO / "problems" / problem)
    assert verdict.status in FAILING, verdict.status
    found = verdict.counterexample
    assert found is not None, f"no counterexample for {path.name}"
    again = second.grade(source, REPO / "problems" / problem).counterexample
    assert again is not None and again.model_dump_json() == found.model_dump_json(), (
        "the same submission, the same input"
    )

    prepared = first.problem(REPO / "problems" / problem)
    spec = prepared.bundle.spec.function(found.function)
    from judge.problem.inputs import materialize

    size = size_of(spec, materialize(found.args))
    smallest, case = _smallest_failing_public(first, problem, verdict, found.function)
    assert size <= smallest, f"{size} values, more than failing public case {case} ({smallest})"
    assert found.call.startswith(found.function + "(") and found.case_add.startswith(f"judge case add {problem} ")

    alone = first.grade(source, _one_case_bundle(tmp_path, problem, found))  # the learner's own file on it
    result = next(c for c in alone.cases if c.id == "counterexample")
    assert result.status in FAILING, (result.status, result.message, found.call)


@pytest.mark.parametrize("item", ACCEPTED, ids=_id)
def test_accepted_examples_get_none_and_agree_everywhere_searched(judges, item):
    problem, path = item
    first, _ = judges
    source = path.read_text()
    verdict = first.grade(source, REPO / "problems" / problem)
    assert verdict.accepted and verdict.counterexample is None
    assert first.search(source, REPO / "problems" / problem) is None, "an accepted example agrees with the reference"


SWAPPED = (REPO / "submissions" / "sinusoidal-pe" / "wrong_answer" / "sin_cos_swapped.py").read_text()
LOOPS_ON_ONE_ROW = SWAPPED.replace("def sinusoidal_pe(max_len, d_model, base=10000.0):",
                                   "def sinusoidal_pe(max_len, d_model, base=10000.0):\n"
                                   "    while max_len == 1 and d_model == 2:  # no case is 1 x 2: only the search\n"
                                   "        pass")
HOGS_ON_ONE_ROW = SWAPPED.replace("def sinusoidal_pe(max_len, d_model, base=10000.0):",
                                  "def sinusoidal_pe(max_len, d_model, base=10000.0):\n"
                                  "    if max_len == 1 and d_model == 2:  # no case is 1 x 2: only the search\n"
                                  "        hog = [np.ones(1 << 27) for _ in range(200)]")


# two busy threads (numpy releases the GIL): the search's 3 s of CPU run out before its 3 s of wall time, so the
# kernel's SIGXCPU ends the run: that is the search's CPU limit, not a crash of the learner's code
HOT_ON_ONE_ROW = SWAPPED.replace("def sinusoidal_pe(max_len, d_model, base=10000.0):",
                                 "def sinusoidal_pe(max_len, d_model, base=10000.0):\n"
                                 "    if max_len == 1 and d_model == 2:  # no case is 1 x 2: only the search\n"
                                 "        threading = __import__('threading')\n"
                                 "        def spin():\n"
                                 "            a = np.ones(1 << 16)\n"
                                 "            while True:\n"
                                 "                np.sin(a, out=a)\n"
                                 "        for _ in range(2):\n"
                                 "            threading.Thread(target=spin, daemon=True).start()\n"
                                 "        spin()")


@pytest.mark.parametrize("source", [LOOPS_ON_ONE_ROW, HOGS_ON_ONE_ROW, HOT_ON_ONE_ROW],
                         ids=["loops", "blows-memory", "burns-cpu-on-every-core"])
def test_what_the_search_runs_into_changes_nothing_in_the_verdict(judges, source):
    from judge import Judge

    assert source != SWAPPED
    first, _ = judges
    with Judge(counterexamples=False) as plain:
        without = plain.grade(source, "sinusoidal-pe")
    verdict = first.grade(source, "sinusoidal-pe")
    assert verdict.status is without.status is Status.WRONG_ANSWER, (verdict.message, without.message)
    assert [(c.id, c.status) for c in verdict.cases] == [(c.id, c.status) for c in without.cases]
    assert verdict.score == without.score and verdict.message == without.message
    assert verdict.resources.oom_kills == without.resources.oom_kills == 0, "the grading run's own resources"
    found = verdict.counterexample
    assert found is None or found.args != {"max_len": 1, "d_model": 2, "base": 10000.0}, \
        "a call that ran out of time or memory proves nothing"
    limits = first.problem("sinusoidal-pe").bundle.spec.limits
    assert verdict.judged_in_ms < (without.judged_in_ms or 0) + limits.search_seconds * 1e3 + 2000


def test_verify_proposes_the_smallest_case_and_its_line_works(tmp_path):
    """A bundle without its base cases lets base_ignored through, and rw_input_dtype is caught only by a 4096 x
    64 float32 case: verify names both with a `judge case add` line; run, the line adds a case that catches."""
    require_sandbox()
    from click.testing import CliRunner

    from judge.authoring.verify import verify_problem
    from judge.cli import main

    root = tmp_path / "problems" / "sinusoidal-pe"
    shutil.copytree(REPO / "problems" / "sinusoidal-pe", root, ignore=shutil.ignore_patterns("__pycache__"))
    cases = yaml.safe_load((root / "cases.yaml").read_text())
    cases["cases"] = [c for c in cases["cases"] if "base" not in c["args"]]
    (root / "cases.yaml").write_text(yaml.safe_dump(cases, sort_keys=False))
    examples = tmp_path / "submissions" / "sinusoidal-pe"
    for folder, name in [("accepted", "vectorised"), ("wrong_answer", "rw_input_dtype"),
                         ("wrong_answer", "sin_cos_swapped")]:
        (examples / folder).mkdir(parents=True, exist_ok=True)
        shutil.copy(REPO / "submissions" / "sinusoidal-pe" / folder / f"{name}.py", examples / folder)
    lines: list[str] = []
    report = verify_problem(str(root), str(examples), echo=lines.append)
    rows = {row.name: row for row in report.author.smallest}
    assert rows["base_ignored"].smallest_case is None and "base=" in rows["base_ignored"].call
    assert rows["wrong_answer/rw_input_dtype.py"].smallest_case == "add-float32"
    assert "wrong_answer/sin_cos_swapped.py" not in rows, "a small case already catches it"
    assert rows["accepted/vectorised.py"].call is None
    proposals = [f.message for f in report.author.findings if f.section == "counterexamples"]
    assert any("mistake base_ignored: no case catches it" in m for m in proposals), proposals
    line = next(m for m in proposals if "rw_input_dtype" in m).split("the smallest that would: ", 1)[1]
    argv = shlex.split(line)
    assert argv[:3] == ["judge", "case", "add"]
    argv[3] = str(root)
    added = CliRunner().invoke(main, argv[1:])
    assert added.exit_code == 0, added.output
    from judge import Judge

    with Judge() as judge:
        verdict = judge.grade((examples / "wrong_answer" / "rw_input_dtype.py").read_text(), root)
    new = [c for c in verdict.cases if c.id not in {c["id"] for c in cases["cases"]}]
    assert len(new) == 1 and new[0].status is Status.WRONG_ANSWER, [(c.id, c.status) for c in new]
    assert json.loads(json.dumps(report.as_dict(), default=str))["counterexamples"]


def test_what_the_learner_says_in_the_search_is_shown_as_theirs_cut_and_clean(judges):
    """A file that, on an input only the search makes, prints and raises a long message that erases the terminal's
    line and announces an accepted verdict: the counterexample shows it as "your code raised", control characters
    replaced, cut to 1000 characters; the judge's own message field holds none of it; the print is nowhere."""
    from judge.formats.common import summary

    first, _ = judges
    path = REPO / "submissions" / "sinusoidal-pe" / "wrong_answer" / "attack_search_text_forges_feedback.py"
    verdict = first.grade(path.read_text(), REPO / "problems" / "sinusoidal-pe")
    found = verdict.counterexample
    assert verdict.status is Status.WRONG_ANSWER and found is not None and found.differs == "raises", found
    assert found.got_text.startswith("ValueError: ") and "accepted, score 1.000" in found.got_text
    assert len(found.got_text) <= 1000 and found.got_text.endswith("(cut)")
    assert not any(c in found.got_text for c in "\r\x1b\x00"), repr(found.got_text[:80])
    assert found.message == "", "the judge's words only: the learner's are in got_text"
    assert "PRINTED-IN-THE-SEARCH" not in verdict.model_dump_json()
    shown = summary(verdict)
    assert "your code raised: ValueError:" in shown and "\x1b" not in shown and "\r" not in shown


def test_the_search_ends_within_its_time_whatever_the_reference_costs(tmp_path):
    """A reference that takes 100 ms a call: making a search's candidates took ~8 s before its run even began.
    The search's clock gives the making half of ``search_seconds`` and the run what is left: a verdict with the
    search comes at most ``search_seconds`` (and a little) after the same verdict without it."""
    require_sandbox()
    import time

    from judge import Judge

    root = tmp_path / "sinusoidal-pe"
    shutil.copytree(REPO / "problems" / "sinusoidal-pe", root, ignore=shutil.ignore_patterns("__pycache__"))
    reference = root / "reference.py"
    text = reference.read_text()
    assert "def sinusoidal_pe(" in text
    reference.write_text(text.replace("def sinusoidal_pe(", "def _sinusoidal_pe(", 1) + '''

def sinusoidal_pe(max_len, d_model, base=10000.0):
    import time
    if max_len * d_model <= 600:  # the search's small candidates (the cases are prepared once, before the clock)
        time.sleep(0.1)
    return _sinusoidal_pe(max_len, d_model, base)
''')
    limits = 3.0
    with Judge(counterexamples=False) as plain, Judge() as searching:
        for judge in (plain, searching):
            judge.grade(SWAPPED, root)  # prepared, warm
        start = time.monotonic()
        without = plain.grade(SWAPPED, root)
        plain_s = time.monotonic() - start
        start = time.monotonic()
        verdict = searching.grade(SWAPPED, root)
        searched_s = time.monotonic() - start
    assert verdict.status is without.status is Status.WRONG_ANSWER
    assert searched_s < plain_s + limits + 1.0, (searched_s, plain_s)


_ROLL_SPEC = """\
schema_version: 1
id: roll-rows
title: Roll the rows
functions:
  - name: roll_rows
    signature: "roll_rows(x, shift, axis=-1)"
    params: [x, shift, axis]
    domain:
      args:
        x: {array: {axes: {row: [1, 64], column: [1, 16]}}}
        shift: {int: [-3, 0]}
        axis: {int: [-1, -1]}
limits: {cpu_seconds: 10, wall_seconds: 20, case_wall_seconds: 4, memory_mib: 256, processes: 4}
tolerance: {atol: 1.0e-12, rtol: 1.0e-12}
imports: {allowed: [numpy]}
"""
_ROLL_CASES = """\
schema_version: 1
cases:
  - {id: ex-roll, function: roll_rows, visibility: public, args: {x: {literal: [[1.0, 2.0, 3.0]]}, shift: -1}}
  - {id: roll-big, function: roll_rows, args: {x: {generate: {shape: [40, 12], seed: 1}}, shift: -3}}
"""


def test_a_negative_int_domain_gets_a_verdict_and_a_counterexample(tmp_path):
    """``axis: {int: [-1, -1]}`` (the documented syntax) made the search loop forever: judge grade of a wrong
    file never answered and a worker sat at 100% CPU.  Here a bundle with such a domain and a file wrong only
    where the shift is -3 (a hidden case): a verdict, a counterexample on the domain's ladder, within seconds."""
    require_sandbox()
    import time

    from judge import Judge

    root = tmp_path / "roll-rows"
    root.mkdir()
    (root / "problem.yaml").write_text(_ROLL_SPEC)
    (root / "cases.yaml").write_text(_ROLL_CASES)
    (root / "statement.md").write_text("Roll each row of x by shift along axis.\n")
    (root / "reference.py").write_text("import numpy as np\n\n\ndef roll_rows(x, shift, axis=-1):\n"
                                       "    return np.roll(np.asarray(x, dtype=np.float64), shift, axis=axis)\n")
    wrong = ("import numpy as np\n\n\ndef roll_rows(x, shift, axis=-1):\n"
             "    return np.roll(np.asarray(x, dtype=np.float64), max(shift, -2), axis=axis)\n")
    import threading

    judge = Judge()
    graded: list = []
    worker = threading.Thread(target=lambda: graded.append(judge.grade(wrong, root)), daemon=True)
    start = time.monotonic()
    worker.start()
    worker.join(60)  # a search that never ends must fail the test, not hang the run
    assert not worker.is_alive(), "no verdict after 60 s: the search does not end"
    judge.close()
    verdict = graded[0]
    assert verdict.status is Status.WRONG_ANSWER, (verdict.status, verdict.message)
    found = verdict.counterexample
    assert found is not None and found.args["shift"] == -3 and found.args["axis"] == -1, found
    assert time.monotonic() - start < 30
