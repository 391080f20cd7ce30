"""Tools for authors: judge new, the verify reports (adequacy, tolerance margins, time limits, statement),
judge case add."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner

from judge.authoring.adequacy import adequacy_findings
from judge.authoring.killers import Killer
from judge.authoring.margins import case_margins
from judge.authoring.timelimits import write_calibration
from judge.cli import main
from judge.problem.models import CaseSpec, Tolerance
from tests.support.common import REPO, require_sandbox


def skeleton(tmp_path: Path, filled: bool = False) -> Path:
    problems = tmp_path / "problems"
    problems.mkdir()
    result = CliRunner().invoke(main, ["new", "my-problem", "--problems-dir", str(problems)])
    assert result.exit_code == 0, result.output
    root = problems / "my-problem"
    if filled:
        for path in list(root.iterdir()) + list((tmp_path / "submissions" / "my-problem").glob("*/*.py")):
            path.write_text(path.read_text().replace("TODO(author):", ""))
    return root


def test_new_writes_the_skeleton_and_verify_lists_what_to_fill_in(tmp_path):
    root = skeleton(tmp_path)
    assert {p.name for p in root.iterdir()} == {"problem.yaml", "cases.yaml", "reference.py", "statement.md",
                                                "mistakes.yaml", "mistakes.py"}
    assert {p.name for p in (tmp_path / "submissions" / "my-problem").iterdir()} >= {
        "accepted", "wrong_answer", "runtime_error", "time_limit_exceeded", "memory_limit_exceeded", "compile_error"}
    text = (root / "problem.yaml").read_text()
    for field in ("schema_version", "title", "functions", "limits", "cpu_seconds", "tolerance", "imports", "scoring",
                  "reference_checks", "mistakes"):
        assert f"{field}:" in text
    assert all("#" in line for line in text.splitlines() if ":" in line and not line.startswith(" " * 6))
    result = CliRunner().invoke(main, ["verify", str(root)])
    assert result.exit_code == 1 and result.exception is None or isinstance(result.exception, SystemExit)
    todo = [line for line in result.output.splitlines() if line.startswith("TODO ")]
    assert len(todo) >= 10 and "Traceback" not in result.output
    assert any("my-problem/reference.py:" in line and "correct solution" in line for line in todo)
    assert any("cases.yaml" in line for line in todo) and any("statement.md" in line for line in todo)
    again = CliRunner().invoke(main, ["new", "my-problem", "--problems-dir", str(tmp_path / "problems")])
    assert again.exit_code == 2 and "already exists" in again.output


def test_case_add_appends_a_validated_case_and_keeps_the_file(tmp_path):
    root = skeleton(tmp_path, filled=True)
    before = (root / "cases.yaml").read_text()
    result = CliRunner().invoke(main, ["case", "add", str(root), "-f", "solve", "--args",
                                       '{"x": {"generate": {"shape": [5, 4], "seed": 9}}, "scale": 0.5}'])
    assert result.exit_code == 0, result.output
    after = (root / "cases.yaml").read_text()
    assert after.startswith(before) and "id: solve-5x4-0.5" in after
    assert "catches 1 bank mistakes (scale_ignored)" in result.output
    bad = CliRunner().invoke(main, ["case", "add", str(root), "-f", "solve", "--args", "{y: 1}"])
    assert bad.exit_code == 2 and "solve has no parameter y" in bad.output
    raising = CliRunner().invoke(main, ["case", "add", str(root), "-f", "solve", "--args",
                                        "{x: {literal: [1.0]}, scale: -2.0}"])
    assert raising.exit_code == 2 and "--raises" in raising.output
    assert (root / "cases.yaml").read_text() == after  # refused cases leave the file alone
    ok = CliRunner().invoke(main, ["case", "add", str(root), "-f", "solve", "--args",
                                   "{x: {literal: [1.0]}, scale: -2.0}", "--raises", "ValueError", "--id", "neg"])
    assert ok.exit_code == 0 and "raises: ValueError" in (root / "cases.yaml").read_text()


def test_adequacy_findings_from_a_kill_matrix():
    cases = [CaseSpec(id="pub", function="f", visibility="public", args={}), CaseSpec(id="h1", function="f", args={}),
             CaseSpec(id="h2", function="f", args={})]
    killers = [Killer("nowhere", "mistake", {"pub": False, "h1": False, "h2": False}),
               Killer("public_only", "example", {"pub": True, "h1": False, "h2": False}),
               Killer("h1_only", "mistake", {"pub": False, "h1": True, "h2": None})]
    found = {(f.level, f.message.split(" is ")[0].split(":")[0]) for f in adequacy_findings(cases, killers)}
    assert ("error", "mistake nowhere") in found and ("warning", "example public_only") in found
    notes = [f.message for f in adequacy_findings(cases, killers) if f.level == "note"]
    assert any("catch none" in n and "h2" in n for n in notes)


def test_tolerance_margins_flag_both_sides():
    cases = [CaseSpec(id="c", function="f", args={})]
    tol = Tolerance(atol=1e-9, rtol=0)
    wrong = Killer("w", "mistake", {"c": True}, {"c": 5.0})
    rows, found = case_margins(cases, tol, {"good.py": {"c": 0.02}}, [wrong])
    assert rows[0].accepted_worst == 0.02 and rows[0].wrong_best == 5.0
    assert [f.level for f in found] == ["warning", "warning"]
    _, found = case_margins(cases, tol, {"good.py": {"c": 2.0}}, [Killer("w", "mistake", {"c": False}, {"c": 0.5})])
    assert [f.level for f in found] == ["error"]  # the accepted one fails; 0.5 is below its noise, not flagged
    _, found = case_margins(cases, tol, {"good.py": {"c": 1e-7}}, [Killer("w", "mistake", {"c": False}, {"c": 0.5})])
    assert [f.level for f in found] == ["error"] and "passes within the tolerance" in found[0].message


def test_calibrate_rewrites_limits_and_keeps_comments(tmp_path):
    path = tmp_path / "problem.yaml"
    shutil.copy(REPO / "problems" / "rotary-embedding" / "problem.yaml", path)
    changed = write_calibration(path, {"cpu_seconds": 3.5, "wall_seconds": 7.0, "case_wall_seconds": 1.5})
    text = path.read_text()
    assert changed == ["cpu_seconds: 3.5", "wall_seconds: 7", "case_wall_seconds: 1.5"]
    assert "  cpu_seconds: 3.5         # all cases together" in text and "  case_wall_seconds: 1.5    # any one" in text


def test_statement_examples_are_checked_against_the_reference(tmp_path):
    from judge.authoring.statement import check_statement
    from judge.grading.prepare import prepare
    from judge.problem.loader import load_problem

    root = tmp_path / "rotary-embedding"
    shutil.copytree(REPO / "problems" / "rotary-embedding", root)
    shown, found = check_statement(prepare(load_problem(root)))
    assert [s.ok for s in shown] == [True, True] and not found
    statement = root / "statement.md"
    statement.write_text(statement.read_text().replace("0.8414710, 0.9999500", "0.8414711, 0.9999500"))
    shown, found = check_statement(prepare(load_problem(root)))
    assert [s.ok for s in shown] == [False, True]
    assert found[0].level == "error" and "shows 0.8414711" in found[0].message


def test_verify_json_report_on_a_filled_skeleton(tmp_path):
    require_sandbox()
    root = skeleton(tmp_path, filled=True)
    result = CliRunner().invoke(main, ["verify", str(root), "--format", "json"])
    report = json.loads(result.output)
    assert result.exit_code == 0 and report["ok"], result.output[-2000:]
    assert {"rows", "adequacy", "tolerance", "time_limits", "statement", "findings"} <= set(report)
    rows = {r["name"]: r["caught"] for r in report["adequacy"]["rows"]}
    assert rows["scale_ignored"]["generated"] is True and rows["wrong_answer/scale_ignored.py"]["ex-literal"] is True
    assert report["time_limits"]["suggested"]["cpu_seconds"] >= 2.0
    assert [s["ok"] for s in report["statement"]] == [True]


def test_covering_cases_prefer_hidden_and_catch_everything():
    from judge.authoring.adequacy import covering_cases

    cases = [CaseSpec(id="pub", function="f", visibility="public", args={}), CaseSpec(id="h1", function="f", args={}),
             CaseSpec(id="h2", function="f", args={})]
    killers = [Killer("a", "mistake", {"pub": True, "h1": True, "h2": False}),
               Killer("b", "mistake", {"pub": True, "h1": False, "h2": True}),
               Killer("c", "mistake", {"pub": False, "h1": False, "h2": False})]
    assert covering_cases(cases, killers) in (["h1", "h2"], ["h2", "h1"])
