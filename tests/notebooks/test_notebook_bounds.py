"""Whatever notebook a learner sends, at every door, the judge answers with one bounded verdict, in time, without
its own memory growing: the attacker's shapes of tests/support/notebook_shapes.py at the service's 1 MiB body limit (a
250,000-character cell id on a crashing answer cell included), JSON Python's reader cannot take, and a .py whose
first line looks like a notebook's JSON -- through ``Judge.grade``, ``grade()``, ``judge grade`` (a file and
stdin), the packaged platform runner and ``judge serve``.  The attack files in ``submissions/`` go through
``judge verify``."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from judge.grading.verdict_size import MAX_VERDICT_BYTES
from judge.verdict import Status
from tests.support.common import PROBLEM_DIR, REPO, SUBMISSIONS, require_sandbox
from tests.support.notebook_shapes import GOOD, LINE_CITING_CRASH, SHAPES, answered, huge_number, long_id
from tests.support.service import Server, service_env, wait_done

MIB = 1 << 20
PATIENCE = 240.0
#: A .py whose first line is a dict literal that looks like a notebook's JSON.
JSON_FIRST_LINE = '{"cells": [], "nbformat": 4}.get("cells")\n' + GOOD
HUGE_NUMBER = huge_number(0)


def _grade(judge, data: str | bytes, **kwargs):
    """judge.grade, answered within PATIENCE seconds."""
    return answered(lambda: judge.grade(data, "sinusoidal-pe", **kwargs), PATIENCE)


def _size(verdict) -> int:
    return len(verdict.model_dump_json().encode())


# -- the verdict's size and the judge's time, for every shape -------------------------------------------------------

@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_every_shape_at_the_body_limit_gets_its_verdict_in_time_and_bounded(judge, shape):
    build, expected = SHAPES[shape]
    verdict = _grade(judge, build(MIB).encode())
    assert verdict.status.value == expected, verdict.message
    assert _size(verdict) <= MAX_VERDICT_BYTES


@pytest.mark.parametrize("id_length", [250_000, MIB - 2000])
def test_a_long_cell_id_on_a_crashing_answer_leaves_the_verdict_bounded(judge, id_length):
    """Its messages name "line 1" hundreds of times per case: once each became the cell's id (392 MB)."""
    verdict = _grade(judge, long_id(id_length + 1000, LINE_CITING_CRASH).encode())
    assert verdict.status is Status.RUNTIME_ERROR
    assert _size(verdict) <= MAX_VERDICT_BYTES
    assert "iiiiiiiiii" not in verdict.model_dump_json(), "an id nbformat does not allow is never shown"
    assert "cell 1, line 5, in sinusoidal_pe" in verdict.cases[0].message, "lines are still named by cell and line"


MEMORY = """
import json, sys
sys.path.insert(0, {repo!r})
from judge import Judge
from tests.support.notebook_shapes import SHAPES, GOOD, LINE_CITING_CRASH, long_id


def peak_kib():
    # VmHWM: this process's own peak.  ru_maxrss keeps, across exec, the peak of the process that forked it
    # (pytest's, gigabytes late in a full run).
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))


with Judge() as judge:
    judge.grade(GOOD, "sinusoidal-pe")
    judge.grade(long_id(5000, LINE_CITING_CRASH), "sinusoidal-pe")
    judge.grade(SHAPES["honest_colab"][0](1 << 20), "sinusoidal-pe")
    honest = peak_kib()
    sizes = {{}}
    for name, (build, _) in SHAPES.items():
        sizes[name] = len(judge.grade(build(1 << 20), "sinusoidal-pe").model_dump_json())
    sizes["long id"] = len(judge.grade(long_id(1 << 20, LINE_CITING_CRASH), "sinusoidal-pe").model_dump_json())
    print(json.dumps({{"honest": honest, "after": peak_kib(), "sizes": sizes}}))
"""


def test_the_judges_own_memory_stays_what_an_honest_submission_takes():
    """The judge's process (the sandbox and the notebook reader have their own limits): after an honest file, an
    honest 1 MiB Colab notebook and a crashing one with a short id, every shape at 1 MiB (a 1 MiB cell id on a
    crashing cell included) raises its peak resident set by little, and it stays under the 512 MiB a worker's
    judge is given (deploy/kubernetes/worker.yaml: the base)."""
    require_sandbox()
    done = subprocess.run([sys.executable, "-c", MEMORY.format(repo=str(REPO))], capture_output=True, text=True,
                          timeout=900, cwd=REPO, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    grown = (figures["after"] - figures["honest"]) / 1024
    assert grown < 64 and figures["after"] < 512 * 1024, f"the judge grew by {grown:.0f} MiB: {figures}"
    assert max(figures["sizes"].values()) <= MAX_VERDICT_BYTES, figures["sizes"]


# -- bad notebooks are the learner's error, at every door -----------------------------------------------------------

def test_a_notebook_reader_refusal_is_a_compile_error_from_judge_and_grade(judge):
    from judge import grade

    verdict = _grade(judge, HUGE_NUMBER)
    assert verdict.status is Status.COMPILE_ERROR and "5000 digits" in verdict.message, verdict.message
    verdict = grade(HUGE_NUMBER.encode(), "sinusoidal-pe")
    assert verdict.status is Status.COMPILE_ERROR and "5000 digits" in verdict.message, verdict.message


def _cli(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "judge.cli", *args], cwd=REPO, input=stdin, capture_output=True,
                          timeout=PATIENCE, check=False)


def test_judge_grade_says_compile_error_for_a_notebook_it_cannot_read(tmp_path):
    require_sandbox()
    path = tmp_path / "homework.ipynb"
    path.write_text(HUGE_NUMBER)
    named = ("--problem", "sinusoidal-pe")
    for done in (_cli("grade", str(path), "--format", "json", *named),
                 _cli("grade", "-", "--format", "json", *named, stdin=HUGE_NUMBER.encode())):
        assert done.returncode == 1 and b"Traceback" not in done.stderr, done.stderr.decode()[-2000:]
        verdict = json.loads(done.stdout)
        assert verdict["status"] == "compile_error" and "5000 digits" in verdict["message"], verdict
    for done in (_cli("grade", str(path)), _cli("grade", "-", stdin=HUGE_NUMBER.encode())):
        said = done.stderr.decode()
        assert done.returncode == 2 and "Traceback" not in said, said[-2000:]
        assert "5000 digits" in said and "--problem" in said, "without a problem: why it cannot be matched"


def test_the_packaged_runner_says_compile_error_not_internal_error(tmp_path, capsys):
    require_sandbox()
    from judge.platforms import gradescope

    (tmp_path / "submission").mkdir()
    (tmp_path / "submission" / "homework.ipynb").write_text(HUGE_NUMBER)
    assert gradescope.run(tmp_path, PROBLEM_DIR) == 0
    results = (tmp_path / "results" / "results.json").read_text()
    assert "5000 digits" in results and "internal error" not in results.lower(), results[:2000]
    assert "verdict compile_error" in capsys.readouterr().err


# -- a file is a notebook by its name, or by parsing as one ---------------------------------------------------------

def test_a_py_whose_first_line_looks_like_json_is_graded_as_python(judge, tmp_path):
    assert _grade(judge, JSON_FIRST_LINE).status is Status.ACCEPTED, "no name: it does not parse as a notebook"
    assert _grade(judge, JSON_FIRST_LINE.encode(), name="answer.py").status is Status.ACCEPTED
    refused = _grade(judge, JSON_FIRST_LINE, name="answer.ipynb")
    assert refused.status is Status.COMPILE_ERROR and "not valid JSON" in refused.message, "by name, a notebook"
    path = tmp_path / "answer.py"
    path.write_text(JSON_FIRST_LINE)
    for done in (_cli("grade", str(path), "--format", "json"),
                 _cli("grade", "-", "--format", "json", stdin=JSON_FIRST_LINE.encode())):
        assert done.returncode == 0 and json.loads(done.stdout)["status"] == "accepted", done.stdout[-2000:]


def test_the_packaged_runner_grades_a_py_by_its_name(tmp_path):
    require_sandbox()
    from judge.platforms.runner import Submission, grade_submission

    verdict, _, _ = grade_submission(PROBLEM_DIR, Submission(JSON_FIRST_LINE.encode(), name="sinusoidal_pe.py"))
    assert verdict.status is Status.ACCEPTED, verdict.message


# -- the service: one worker, never held ---------------------------------------------------------------------------

def test_the_service_grades_attacks_and_the_next_honest_file_without_holding_its_only_worker(tmp_path):
    """One worker: a notebook the reader cannot take, a .py that looks like JSON, and 700 KB of bare magics, each
    its verdict, and the honest file sent after them is graded promptly (once, the magics held the worker)."""
    require_sandbox()
    token = "notebook-bounds-token-0123456789"
    env = service_env(JUDGE_API_TOKENS=f"course:{token}", JUDGE_MAX_BODY_BYTES=str(4 * MIB))
    server = Server(tmp_path, f"sqlite:///{tmp_path}/judge.sqlite3", env, workers=1)
    try:
        with server.client(token) as client:
            sent = {}
            for what, source in (("huge number", HUGE_NUMBER), ("json first line", JSON_FIRST_LINE),
                                 ("bare magics", SHAPES["bare_magics"][0](700_000)), ("honest", GOOD)):
                response = client.post("/v1/submissions", json={"problem": "sinusoidal-pe", "source": source})
                assert response.status_code == 202, response.text
                sent[what] = response.json()["id"]
            done = wait_done(client, list(sent.values()), 180)
        status = {what: done[sub_id]["verdict"]["status"] for what, sub_id in sent.items()}
        assert status == {"huge number": "compile_error", "json first line": "accepted", "bare magics": "accepted",
                          "honest": "accepted"}, status
        assert "5000 digits" in done[sent["huge number"]]["verdict"]["message"]
    finally:
        server.stop()


# -- the attack files ----------------------------------------------------------------------------------------------

NOTEBOOK_ATTACKS = sorted(p for p in SUBMISSIONS.glob("*/attack_*.ipynb")) + \
    [SUBMISSIONS / "accepted" / "json_looking_first_line.py"]


def test_the_notebook_attack_files_get_their_folders_verdicts_in_judge_verify(tmp_path):
    require_sandbox()
    assert len(NOTEBOOK_ATTACKS) >= 7
    for path in NOTEBOOK_ATTACKS:
        (tmp_path / path.parent.name).mkdir(exist_ok=True)
        shutil.copy(path, tmp_path / path.parent.name / path.name)
    done = _cli("verify", "sinusoidal-pe", "--submissions", str(tmp_path), "--format", "json", "--workers", "2")
    report = json.loads(done.stdout)
    rows = {row["item"]: row for row in report["rows"]}
    for path in NOTEBOOK_ATTACKS:
        row = rows[f"{path.parent.name}/{path.name}"]
        assert row["ok"], row
