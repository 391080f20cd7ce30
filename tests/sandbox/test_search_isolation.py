"""The counterexample search's run reads nothing the grading run wrote: the search must not read hidden cases'
outputs through it.

A wrong answer runs twice: on every case, then on the inputs the search made up, whose first exception is shown
to the learner as the counterexample's "got".  The search's run used to start on the grading run's result buffer
with only its slot headers cleared, so a file could write every case's arguments (hidden ones included) into a
slot's data area during its first run and raise them during its second: the counterexample showed them in
full.  Here that file (submissions/sinusoidal-pe/wrong_answer/attack_leak_through_search.py) is graded warm
(``Judge``) and one-shot (``judge grade``, a fresh process) on every mode this machine gives -- full, rootless
(the rootless CI tier selects ``-k rootless``), none, reduced (in the judge image under a default ``docker run``)
and the container backend -- and its note must reach no verdict.  A control that writes its note and reads it
back within one run shows the note would be seen if it were there.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.support.common import REPO, require_docker
from tests.support.sandbox import require_mode

SANDBOX_IMAGE = os.environ.get("JUDGE_CONTAINER_IMAGE", "numpy-judge:sandbox")
JUDGE_IMAGE = os.environ.get("JUDGE_IMAGE", "numpy-judge:local")
PROBLEM = REPO / "problems" / "sinusoidal-pe"
ATTACK = REPO / "submissions" / "sinusoidal-pe" / "wrong_answer" / "attack_leak_through_search.py"
MARK = "NOTE-FROM-THE-FIRST-RUN"
#: What the grading run saw of a hidden case only (table-odd-base-500: max_len 9, d_model 7, base 500).
HIDDEN_ONLY = "base=500"
#: The control: the note is written at load and read back at the first call, in the same run.
CONTROL = ATTACK.read_text().replace("_FOUND = _read_note()  # at load: before this run's calls write anything",
                                     "_write_note()\n_FOUND = _read_note()  # the control: its own note")
MODES = ["full", "rootless", "none", "container"]


def _judge(mode: str):
    from judge import Judge

    if mode == "container":
        require_docker(SANDBOX_IMAGE, what="CONTAINER SEARCH-ISOLATION TESTS").close()
        return Judge(backend="container", image=SANDBOX_IMAGE)
    require_mode(mode)
    return Judge(isolation=mode, unsafe_no_sandbox=mode == "none")


def _leaked(verdict_json: str) -> list[str]:
    return [word for word in (MARK, HIDDEN_ONLY) if word in verdict_json]


def _one_shot(path, mode: str) -> dict:
    """``judge grade`` in a fresh process (the cold path of every course platform), its verdict JSON."""
    flags = ["--backend", "container", "--image", SANDBOX_IMAGE] if mode == "container" else \
        ["--isolation", mode] + (["--unsafe-no-sandbox"] if mode == "none" else [])
    r = subprocess.run([sys.executable, "-m", "judge", "grade", str(path), "-p", str(PROBLEM), "--format", "json",
                        *flags], capture_output=True, text=True, timeout=300, cwd=REPO,
                       env=dict(os.environ, PYTHONPATH=str(REPO)))
    assert r.stdout.strip(), r.stderr[-3000:]
    return json.loads(r.stdout)


def test_the_attack_is_checked_by_verify():
    """The file is in its folder with the verdict it must get (``judge verify`` runs it), harm named."""
    assert ATTACK.parent.name == "wrong_answer" and "\n# harm: leak_hidden_cases" in ATTACK.read_text()
    assert MARK not in ATTACK.read_text(), "the note's mark is never one piece in the file (its traceback shows it)"


@pytest.mark.parametrize("mode", MODES)
def test_the_search_run_of_a_warm_judge_reads_nothing_the_grading_run_wrote(mode: str):
    from judge.verdict import Status

    with _judge(mode) as judge:
        control = judge.grade(CONTROL, PROBLEM)
        assert control.counterexample is not None and MARK in control.counterexample.got_text, \
            "the control: a note in the search run's own buffer reaches the counterexample"
        for _ in range(2):  # and again on the same warm backend, whose buffer the control ran on
            verdict = judge.grade(ATTACK.read_text(), PROBLEM)
            assert verdict.status is Status.WRONG_ANSWER, (verdict.status, verdict.message[:300])
            assert verdict.counterexample is not None and verdict.counterexample.differs == "values", \
                verdict.counterexample
            assert _leaked(verdict.model_dump_json()) == []


@pytest.mark.parametrize("mode", MODES)
def test_the_search_run_of_a_one_shot_grade_reads_nothing_the_grading_run_wrote(mode: str, tmp_path):
    if mode == "container":
        require_docker(SANDBOX_IMAGE, what="CONTAINER SEARCH-ISOLATION TESTS").close()
    else:
        require_mode(mode)
    control = tmp_path / "control.py"
    control.write_text(CONTROL)
    shown = _one_shot(control, mode)["counterexample"]
    assert shown is not None and MARK in shown["got_text"], "the control: its own note reaches the counterexample"
    verdict = _one_shot(ATTACK, mode)
    assert verdict["status"] == "wrong_answer" and verdict["counterexample"] is not None, verdict["message"][:300]
    assert _leaked(json.dumps(verdict)) == []


_REDUCED = r'''
import json, pathlib, subprocess, sys
from judge import Judge
attack = "/submissions/sinusoidal-pe/wrong_answer/attack_leak_through_search.py"
control = pathlib.Path("/tmp/control.py")
control.write_text(sys.argv[1])
out = {}
with Judge() as judge:
    for name, path in (("control", str(control)), ("warm", attack), ("warm again", attack)):
        v = judge.grade(open(path).read(), "sinusoidal-pe")
        out[name] = {"mode": v.isolation.mode, "status": v.status.value, "json": v.model_dump_json()}
for name, path in (("one-shot control", str(control)), ("one-shot", attack)):
    r = subprocess.run([sys.executable, "-m", "judge", "grade", path, "--format", "json"], capture_output=True,
                       text=True)
    v = json.loads(r.stdout)
    out[name] = {"mode": v["isolation"]["mode"], "status": v["status"], "json": r.stdout}
print("RESULT " + json.dumps(out))
'''


def test_the_search_run_in_mode_reduced_reads_nothing_the_grading_run_wrote():
    """Mode reduced where it is meant to run: the judge image under a default ``docker run``, warm and one-shot."""
    require_docker(JUDGE_IMAGE, what="REDUCED-MODE SEARCH-ISOLATION TESTS").close()
    r = subprocess.run(["docker", "run", "--rm", "-v", f"{REPO / 'submissions'}:/submissions:ro",
                        "-e", f"JUDGE_TIME_SCALE={os.environ.get('JUDGE_TIME_SCALE') or '2'}",
                        "--entrypoint", "python3", JUDGE_IMAGE, "-c", _REDUCED, CONTROL],
                       capture_output=True, text=True, timeout=600)
    line = next((x for x in r.stdout.splitlines() if x.startswith("RESULT ")), None)
    assert r.returncode == 0 and line is not None, (r.stdout[-2000:], r.stderr[-3000:])
    out = json.loads(line[len("RESULT "):])
    assert {row["mode"] for row in out.values()} == {"reduced"}, out
    for name in ("control", "one-shot control"):
        assert MARK in json.loads(out[name]["json"])["counterexample"]["got_text"], (name, out[name]["json"][:2000])
    for name in ("warm", "warm again", "one-shot"):
        verdict = json.loads(out[name]["json"])
        assert verdict["status"] == "wrong_answer" and verdict["counterexample"] is not None, name
        assert _leaked(out[name]["json"]) == [], (name, verdict["counterexample"])
