"""Authors see what learners will see: ``judge show --as-learner`` and ``judge verify``'s warning on hidden ids
that carry their cases' arguments (the ids of sinusoidal-pe do: ``table-odd-33``, ``table-base-100``)."""

from __future__ import annotations

import shutil
import subprocess
import sys

from judge.authoring.hidden_ids import telling_ids
from judge.problem.loader import load_problem
from tests.support.common import REPO


def _show(*args: str) -> str:
    p = subprocess.run([sys.executable, "-m", "judge.cli", "show", *args, "--as-learner"], cwd=REPO,
                       capture_output=True, timeout=120)
    assert p.returncode == 0, p.stderr.decode()
    return p.stdout.decode()


def test_verify_warns_on_hidden_ids_that_carry_their_arguments():
    bundle = load_problem(REPO / "problems" / "sinusoidal-pe")
    found = {f.message.split("'")[1]: f for f in telling_ids(list(bundle.cases.cases))}
    assert {"table-odd-33", "table-base-100", "add-3-leading-axes", "add-float32"} <= set(found)
    assert all(f.level == "warning" for f in found.values())   # a warning: nothing is graded wrongly
    assert "'33'" in found["table-odd-33"].message and "'100'" in found["table-base-100"].message
    assert not {"table-medium", "add-batch", "add-odd-d"} & set(found)   # what they test, not their inputs
    assert all(c.visibility != "public" for c in bundle.cases.cases if c.id in found)


def test_numbered_ids_are_counters_not_arguments():
    bundle = load_problem(REPO / "problems" / "softmax")
    assert telling_ids(list(bundle.cases.cases)) == []


def test_show_as_learner_names_no_hidden_case():
    out = _show("sinusoidal-pe")
    bundle = load_problem(REPO / "problems" / "sinusoidal-pe")
    hidden = [c.id for c in bundle.cases.cases if c.visibility != "public"]
    assert not [i for i in hidden if i in out], out
    assert "hidden case 18 of 18" in out and "ex-table-3x4: sinusoidal_pe(max_len=3, d_model=4)" in out
    assert "hidden cases: diagnosis" in out and "anonymous" in out


def test_show_as_learner_follows_problem_yaml(tmp_path):
    root = tmp_path / "sinusoidal-pe"
    shutil.copytree(REPO / "problems" / "sinusoidal-pe", root)
    text = (root / "problem.yaml").read_text()
    (root / "problem.yaml").write_text(text + "feedback:\n  hidden: score\n  due: 2020-01-01T00:00:00Z\n"
                                              "  after_due: status\n  hidden_ids: true\n")
    out = _show(str(root))
    assert "from 2020-01-01T00:00:00+00:00: status" in out
    assert "table-odd-33: sinusoidal_pe(...)  (hidden)" in out   # past the due date, with ids shown
    (root / "problem.yaml").write_text(text + "feedback:\n  hidden: score\n")
    out = _show(str(root))
    assert "18 hidden cases: only their score" in out and "table-odd-33" not in out
