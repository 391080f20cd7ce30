"""Exports of one verdict, checked against each format's rules (real verdicts from the real sandbox)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

import jsonschema
import pytest

from tests.support.common import REPO, SUBMISSIONS

SCHEMAS = REPO / "tests" / "platform_schemas"    # written from each platform's documentation
GRADESCOPE_SCHEMA = json.loads((SCHEMAS / "gradescope-results.schema.json").read_text())
EXERCISM_SCHEMA = json.loads((SCHEMAS / "exercism-results.schema.json").read_text())
PRAIRIELEARN_SCHEMA = json.loads((SCHEMAS / "prairielearn-results.schema.json").read_text())
EXAMPLES = [("wrong_answer", "sin_cos_swapped.py"), ("wrong_answer", "forge_output.py"),
            ("wrong_answer", "returns_list.py"), ("accepted", "vectorised.py"),
            ("runtime_error", "raises_index_error.py"), ("runtime_error", "os_exit.py"),
            ("compile_error", "syntax_error.py")]
_cache: dict = {}


@pytest.fixture
def graded(judge):
    def get(status: str, name: str):
        if (status, name) not in _cache:
            _cache[(status, name)] = judge.grade((SUBMISSIONS / status / name).read_bytes())
        return _cache[(status, name)]
    bundle = judge.problem("sinusoidal-pe").bundle
    return get, bundle


def _reveals_location(text: str) -> bool:
    return bool(re.search(r"at index \(|position p=\d|expected -?\d\.\d{4}", text or ""))


@pytest.mark.parametrize("status,name", EXAMPLES)
def test_gradescope(graded, status, name):
    from judge.formats import export

    get, bundle = graded
    verdict = get(status, name)
    data = json.loads(export(verdict, "gradescope", bundle))
    jsonschema.validate(data, GRADESCOPE_SCHEMA)
    tests = data["tests"]
    assert [t["name"].split(" ")[0].rstrip(":") for t in tests] == [c.id for c in verdict.cases], "case order"
    assert [t["number"] for t in tests] == [str(i + 1) for i in range(len(tests))]
    assert data["score"] == pytest.approx(sum(t["score"] for t in tests))
    for t, c in zip(tests, verdict.cases):
        assert t["score"] <= t["max_score"]
        assert (t["status"] == "passed") == (c.status.value == "accepted")
        if c.visibility == "hidden":
            assert t["visibility"] != "visible" and not _reveals_location(t["output"])
        else:
            assert t["visibility"] == "visible"
    if verdict.diagnoses:
        assert data["output"].index(verdict.diagnoses[0].id) < data["output"].index("first failing case")
        assert verdict.diagnoses[0].id in tests[next(i for i, c in enumerate(verdict.cases)
                                                    if c.id in verdict.diagnoses[0].cases)]["tags"]


@pytest.mark.parametrize("status,name", EXAMPLES)
def test_exercism(graded, status, name):
    from judge.formats import export

    get, bundle = graded
    verdict = get(status, name)
    data = json.loads(export(verdict, "exercism", bundle))
    jsonschema.validate(data, EXERCISM_SCHEMA)
    if status == "compile_error":
        assert data["status"] == "error" and data["tests"] == [] and "message" in data
        return
    assert "message" not in data, "top-level message only with status error"
    assert [t["name"].split(" ")[0].rstrip(":") for t in data["tests"]] == [c.id for c in verdict.cases]
    assert data["status"] == ("pass" if verdict.accepted else "fail")
    for t, c in zip(data["tests"], verdict.cases):
        want = {"accepted": "pass", "wrong_answer": "fail"}.get(c.status.value, "error")
        assert t["status"] == want
        if c.visibility == "hidden":
            assert "hidden case" in t["test_code"] and not _reveals_location(t["message"])
        else:
            assert t["test_code"].startswith(c.function + "(") and "..." not in t["test_code"]
    if verdict.diagnoses:
        first_failing = next(t for t in data["tests"] if t["status"] != "pass")
        assert first_failing["message"].index("Likely mistake: " + verdict.diagnoses[0].id) == \
            first_failing["message"].index("Likely mistake")


def test_exercism_caps_output_at_500_with_a_note(graded):
    from judge.formats import export

    get, bundle = graded
    verdict = get("wrong_answer", "forge_output.py")
    assert len(verdict.stdout.text) > 500
    data = json.loads(export(verdict, "exercism", bundle))
    for test, case in zip(data["tests"], verdict.cases):   # each test shows its own prints, public cases only
        if case.visibility == "hidden":
            assert test["output"] is None
        else:
            assert "ACCEPTED" in test["output"] and len(test["output"]) <= 500
    first = verdict.cases[0]
    assert first.visibility == "public" and first.output is not None
    loud = first.model_copy(update={"output": first.output.model_copy(update={"stdout": "x" * 2000})})
    out = json.loads(export(verdict.model_copy(update={"cases": [loud, *verdict.cases[1:]]}), "exercism",
                            bundle))["tests"][0]["output"]
    assert len(out) == 500 and out.endswith("Please limit to 500 chars.")
    long = verdict.model_copy(update={"message": "x" * 70000, "cases": [], "status": verdict.status.COMPILE_ERROR})
    data = json.loads(export(long, "exercism", bundle))
    jsonschema.validate(data, EXERCISM_SCHEMA)
    assert len(data["message"]) <= 65535


def _junit_check(text: str, verdict) -> ET.Element:
    assert text.startswith('<?xml version="1.0" encoding="UTF-8"?>')
    root = ET.fromstring(text.encode())
    assert root.tag == "testsuites"
    suites = root.findall("testsuite")
    assert len(suites) == 1
    suite = suites[0]
    cases = suite.findall("testcase")
    for el in (root, suite):
        assert int(el.get("tests")) == len(cases)
        assert int(el.get("failures")) == sum(len(c.findall("failure")) for c in cases)
        assert int(el.get("errors")) == sum(len(c.findall("error")) for c in cases)
        assert int(el.get("skipped")) == sum(len(c.findall("skipped")) for c in cases)
        float(el.get("time"))
    for c in cases:
        assert c.get("name") and c.get("classname")
        float(c.get("time"))
        outcomes = [e for e in c if e.tag in ("failure", "error", "skipped")]
        assert len(outcomes) <= 1
        for e in outcomes:
            assert e.get("message") is not None and len(e.get("message")) <= 1000
            if e.tag != "skipped":
                assert e.get("type")
    allowed_children = {"properties", "testcase", "system-out", "system-err"}
    assert {e.tag for e in suite} <= allowed_children
    if verdict.cases:
        assert [c.get("name") for c in cases] == [c.id for c in verdict.cases]
    return suite


@pytest.mark.parametrize("status,name", EXAMPLES)
def test_junit(graded, status, name):
    from judge.formats import export

    get, bundle = graded
    verdict = get(status, name)
    suite = _junit_check(export(verdict, "junit", bundle), verdict)
    cases = suite.findall("testcase")
    if not verdict.cases:
        assert len(cases) == 1 and cases[0].find("error") is not None
        return
    for el, c in zip(cases, verdict.cases):
        tag = {"accepted": None, "wrong_answer": "failure", "skipped": "skipped"}.get(c.status.value, "error")
        assert (el[0].tag if len(el) else None) == tag
        if c.visibility == "hidden" and len(el):
            assert not _reveals_location(el[0].text) and not _reveals_location(el[0].get("message"))
    props = {p.get("name"): p.get("value") for p in suite.find("properties")}
    assert props["status"] == verdict.status.value
    assert props["diagnoses"] == ",".join(d.id for d in verdict.diagnoses)


def test_junit_survives_hostile_output(graded):
    from judge.formats import export

    get, bundle = graded
    verdict = get("wrong_answer", "sin_cos_swapped.py")
    hostile = verdict.model_copy(update={"stderr": verdict.stderr.model_copy(
        update={"text": "bad \x00\x07 bytes ]]> </testsuite> \ud800 &amp; <x/>"})})
    suite = _junit_check(export(hostile, "junit", bundle), hostile)
    assert "</testsuite>" in suite.find("system-err").text


def test_cli_formats(judge):
    path = str(SUBMISSIONS / "wrong_answer" / "sin_cos_swapped.py")
    for fmt in ("gradescope", "exercism", "junit"):
        p = subprocess.run([sys.executable, "-m", "judge.cli", "grade", path, "--format", fmt], cwd=REPO,
                           capture_output=True, timeout=120)
        assert p.returncode == 1, p.stderr.decode()
        if fmt == "junit":
            ET.fromstring(p.stdout)
        else:
            jsonschema.validate(json.loads(p.stdout), GRADESCOPE_SCHEMA if fmt == "gradescope" else EXERCISM_SCHEMA)
    p = subprocess.run([sys.executable, "-m", "judge.cli", "grade", path, "--format", "text"], cwd=REPO,
                       capture_output=True, timeout=120)
    assert b"\x1b[" not in p.stdout and b"What went wrong" in p.stdout


@pytest.mark.parametrize("fmt", ["exercism", "gradescope", "prairielearn"])
@pytest.mark.parametrize("split", [True, False])
def test_hidden_cases_prints_are_withheld(graded, fmt, split):
    """What the learner printed during a hidden case (e.g. its arguments) never reaches the learner's view;
    when the capture could not be split per call, nothing printed is shown once a hidden case ran."""
    from judge.formats import export

    get, bundle = graded
    verdict = get("wrong_answer", "forge_output.py")
    assert any(c.visibility == "hidden" for c in verdict.cases) and all(c.output is not None for c in verdict.cases)
    cases = []
    for c in verdict.cases:
        text = f"SECRET-ARGS-OF-{c.id}" if c.visibility == "hidden" else f"PUBLIC-PRINT-{c.id}"
        cases.append(c.model_copy(update={"output": c.output.model_copy(update={"stdout": text}) if split else None}))
    whole = "".join(c.output.stdout for c in cases if c.output) if split else "SECRET-ARGS-OF-all"
    probe = verdict.model_copy(update={"cases": cases, "stdout": verdict.stdout.model_copy(update={"text": whole})})
    text = export(probe, fmt, bundle)
    assert "SECRET-ARGS" not in text
    if split and fmt != "gradescope":   # Gradescope's stdout goes to instructors only (stdout_visibility hidden)
        assert "PUBLIC-PRINT-" in text


@pytest.mark.parametrize("status,name", EXAMPLES)
def test_prairielearn(graded, status, name):
    from judge.formats import export

    get, bundle = graded
    verdict = get(status, name)
    data = json.loads(export(verdict, "prairielearn", bundle))
    jsonschema.validate(data, PRAIRIELEARN_SCHEMA)
    if status == "compile_error":
        assert data["gradable"] is False and data["format_errors"], "a compile error costs the learner no attempt"
        return
    assert data["gradable"] is True and data["score"] == pytest.approx(verdict.score)
    assert [t["name"].split(" ")[0].rstrip(":") for t in data["tests"]] == [c.id for c in verdict.cases]
    for t, c in zip(data["tests"], verdict.cases):
        assert (t["points"] == t["max_points"]) == (c.status.value == "accepted")
        if c.visibility == "hidden":
            assert "hidden" in t["description"] and not _reveals_location(t["message"])


def test_prairielearn_images_are_the_verdicts_pictures(judge, tmp_path):
    """A failing public case's pictures travel as data URIs in its test; hidden cases never have any."""
    pytest.importorskip("matplotlib", reason="PICTURES NOT TESTED: matplotlib (extra 'pictures') missing")
    from judge.formats.prairielearn import results

    verdict = judge.grade((SUBMISSIONS / "wrong_answer" / "sin_cos_swapped.py").read_bytes(), pictures_dir=tmp_path)
    assert verdict.pictures
    data = results(verdict, judge.problem("sinusoidal-pe").bundle, tmp_path)
    jsonschema.validate(data, PRAIRIELEARN_SCHEMA)
    shown = [(t["name"], i) for t in data["tests"] for i in t.get("images", [])]
    assert len(shown) == len(verdict.pictures)
    assert all(i["url"].startswith("data:image/png;base64,iVBOR") and "(hidden)" not in name for name, i in shown)
    assert len(json.dumps(data)) < 1_000_000
