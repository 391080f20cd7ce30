"""Each feedback level, through each door, for one wrong answer whose failing cases are hidden: what the learner
reads holds no hidden case's id, arguments, shapes or values at the levels that promise it, and what the teacher
reads (the platform API's and the class view's submission) is the whole verdict.

The answer is graded once (real sandbox); each level is a copy of the bundle whose problem.yaml has a
``feedback:`` section, loaded from disk as every door loads it; each door renders the one verdict through the
function it calls after grading (the learner page, ``check()``, the ``judge grade --format`` exports, the
packaged runners).  A few doors also run end to end, grading again, one level each: the whole way, cheaply.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from judge.problem.feedback_policy import FeedbackLevel
from judge.problem.loader import Bundle, load_problem
from judge.verdict import Verdict
from tests.support.common import REPO, SUBMISSIONS, require_sandbox

ANSWER = SUBMISSIONS / "wrong_answer" / "odd_last_column_not_zero.py"  # wrong exactly on the odd d_model tables
LEVELS = list(FeedbackLevel)
EXPORTS = ("gradescope", "prairielearn", "exercism")
DOORS = ("page", "check", *EXPORTS)
_verdicts: list[Verdict] = []


@pytest.fixture(scope="module")
def bundles(tmp_path_factory) -> dict[FeedbackLevel, Path]:
    """A copy of sinusoidal-pe per level, its problem.yaml stating that level for hidden cases."""
    roots = {}
    for level in LEVELS:
        root = tmp_path_factory.mktemp(f"feedback-{level.value}") / "sinusoidal-pe"
        shutil.copytree(REPO / "problems" / "sinusoidal-pe", root)
        spec = root / "problem.yaml"
        spec.write_text(spec.read_text() + f"feedback:\n  hidden: {level.value}\n")
        roots[level] = root
    return roots


@pytest.fixture
def wrong_verdict(judge) -> Verdict:
    """The answer's whole verdict, graded once for the module."""
    if not _verdicts:
        _verdicts.append(judge.grade(ANSWER.read_bytes(), "sinusoidal-pe"))
    verdict = _verdicts[0]
    assert verdict.status.value == "wrong_answer"
    assert any(c.status.value != "accepted" for c in verdict.cases if c.visibility == "hidden")
    return verdict


def _through(door: str, verdict: Verdict, bundle: Bundle) -> str:
    """All a learner can read of ``verdict`` through ``door``, with the policy of ``bundle``."""
    if door == "page":   # the learner page's JSON (an activity's policy is passed the same way)
        from judge.service.lti.learner_view import learner_verdict

        return json.dumps(learner_verdict(verdict.model_dump(mode="json"), bundle.spec.feedback))
    if door == "check":
        from judge.notebook_check import learner_check

        checked, line = learner_check(verdict, bundle)
        return checked.model_dump_json() + "\n" + line
    from judge.formats import export_for_learners  # what `judge grade --format` prints

    return export_for_learners(verdict, door, bundle)


def _forms(args: dict, shape: list[int] | None) -> set[str]:
    """The ways a text may spell a case's arguments (all of them together: ``d_model=1`` alone is also in the
    counterexample the judge found on a public case) and its output's shape."""
    scalars = {k: v for k, v in args.items() if isinstance(v, (int, float, str, bool))}
    out = set()
    if len(scalars) >= 2:
        out |= {", ".join(f"{k}={v!r}" for k, v in scalars.items()), json.dumps(scalars)}
    if shape and len(shape) >= 2:
        out |= {"(" + ", ".join(map(str, shape)) + ")", "(" + ",".join(map(str, shape)) + ")",
                "x".join(map(str, shape)), "×".join(map(str, shape)), f"_shape\": {json.dumps(shape)}",
                f"_shape\":{json.dumps(shape, separators=(',', ':'))}"}
    return out


def _values(verdict: Verdict, visibility: str) -> set[str]:
    """Numbers the judge measured on the cases of ``visibility``: sizes, worst errors, values at the worst."""
    found = set()
    for case in verdict.cases:
        if case.visibility == visibility and case.facts is not None:
            f = case.facts
            found |= {str(f.total)} | {repr(x) for x in (f.max_abs_error, f.max_rel_error, f.expected_at_worst,
                                                          f.got_at_worst) if x is not None}
    return {v for v in found if len(v) >= 4}   # "1.0" or "33" alone could be anything


def _secrets(verdict: Verdict, bundle: Bundle) -> list[tuple[str, re.Pattern]]:
    """(what, pattern) for each hidden id, argument, shape and value that no public case shows as well."""
    specs = {c.id: c for c in bundle.cases.cases}
    public: set[str] = set()
    hidden: dict[str, set[str]] = {}
    for case in verdict.cases:
        forms = _forms(specs[case.id].args or {}, case.expected_shape) | _forms({}, case.got_shape)
        if case.visibility == "public":
            public |= forms
        else:
            hidden.setdefault(case.id, set()).update(forms)
    out = [(f"id {i}", re.compile(rf"(?<![\w-]){re.escape(i)}(?![\w-])")) for i in hidden]
    out += [(f"{i}: {form}", _whole(form)) for i, forms in hidden.items() for form in sorted(forms - public)]
    out += [(f"value {v}", _whole(v)) for v in sorted(_values(verdict, "hidden") - _values(verdict, "public"))]
    return out


def _whole(form: str) -> re.Pattern:
    """``form`` not inside a longer number or word (``(50, 33)`` is not in ``(150, 33)``)."""
    before = r"(?<![\w.])" if form[0].isalnum() else ""
    after = r"(?![\w.])" if form[-1].isalnum() else ""
    return re.compile(before + re.escape(form) + after)


@pytest.mark.parametrize("level", LEVELS, ids=[lv.value for lv in LEVELS])
@pytest.mark.parametrize("door", DOORS)
def test_each_door_shows_a_learner_what_the_level_promises(wrong_verdict, bundles, level, door):
    bundle = load_problem(bundles[level])
    assert bundle.spec.feedback.hidden is level
    text = _through(door, wrong_verdict, bundle)
    leaks = [what for what, pattern in _secrets(wrong_verdict, bundle) if pattern.search(text)]
    hidden = sum(c.visibility == "hidden" for c in wrong_verdict.cases)
    if level is FeedbackLevel.FULL:   # the teacher chose to show everything: the ids are there
        assert any(what.startswith("id ") for what in leaks), (door, text[:2000])
        return
    assert leaks == [], (door, level.value, leaks)
    rows = set(re.findall(r"hidden case \d+ of \d+", text))
    if level is FeedbackLevel.SCORE:   # no row per hidden case; the count of those that passed, never "all"
        assert rows == set(), (door, rows)
    else:
        assert rows == {f"hidden case {k} of {hidden}" for k in range(1, hidden + 1)}, (door, level.value, rows)
    # the share of wrong values in a hidden case is diagnosis's (public cases word theirs otherwise)
    assert ("% of the values out of tolerance" in text) is (level is FeedbackLevel.DIAGNOSIS), (door, level.value)


def test_the_teacher_gets_the_whole_verdict(wrong_verdict, bundles):
    """The platform API's submission and the class view's (the same view of the stored row) carry the verdict
    as graded, whatever the level: hidden ids, shapes and values included."""
    from judge.service.schemas import submission_view
    from judge.service.store import StoredSubmission

    strict = load_problem(bundles[FeedbackLevel.SCORE])
    row = StoredSubmission(id="s1", platform="lms", problem="sinusoidal-pe", source="", state="done",
                           created_at=0.0, verdict_json=wrong_verdict.model_dump_json(),
                           status=wrong_verdict.status.value)
    view = submission_view(row)
    assert view["verdict"] == json.loads(wrong_verdict.model_dump_json())
    text = json.dumps(view)
    found = {what for what, pattern in _secrets(wrong_verdict, strict) if pattern.search(text)}
    assert {what for what, _ in _secrets(wrong_verdict, strict) if what.startswith("id ")} <= found, found
    assert any("shape" in what for what in found) and any(what.startswith("value ") for what in found), found


def _gradescope(root: Path, work: Path) -> dict:
    from judge.platforms import gradescope

    (work / "submission").mkdir(parents=True)
    shutil.copy(ANSWER, work / "submission" / gradescope.expected_file(root))
    gradescope.run(work, root)
    return json.loads((work / "results" / "results.json").read_text())


def _exercism(root: Path, work: Path) -> dict:
    from judge.platforms import exercism

    problems, solution, out = work / "problems", work / "solution", work / "out"
    shutil.copytree(root, problems / root.name)
    solution.mkdir(parents=True)
    shutil.copy(ANSWER, solution / exercism.submission_name(root.name))
    exercism.run(root.name, solution, out, problems)
    return json.loads((out / "results.json").read_text())


def _check(root: Path, _work: Path) -> str:
    from judge.notebook_check import grade_here

    checked, line = grade_here(root, source=ANSWER)
    return checked.model_dump_json() + "\n" + line


def _cli(fmt: str) -> Callable[[Path, Path], str]:
    def run(root: Path, _work: Path) -> str:
        p = subprocess.run([sys.executable, "-m", "judge.cli", "grade", str(ANSWER), "-p", str(root), "--format", fmt],
                           cwd=REPO, capture_output=True, timeout=300)
        assert p.returncode == 1 and p.stdout, p.stderr.decode()[-2000:]
        return p.stdout.decode()
    return run


#: One level per door: each whole run grades again (2 to 4 s).  PrairieLearn's runner also draws the failing
#: public cases (8 s): its rendering is the ``prairielearn`` door above, its whole run is in test_platforms.py.
END_TO_END = [("gradescope runner", FeedbackLevel.SCORE, _gradescope),
              ("exercism runner", FeedbackLevel.SCORE, _exercism),
              ("check()", FeedbackLevel.STATUS, _check),
              ("judge grade --format exercism", FeedbackLevel.STATUS, _cli("exercism"))]


@pytest.mark.parametrize("door,level,run", END_TO_END, ids=[d for d, _, _ in END_TO_END])
def test_whole_runs_withhold_what_the_level_promises(wrong_verdict, bundles, tmp_path, door, level, run):
    require_sandbox()
    bundle = load_problem(bundles[level])
    result = run(bundles[level], tmp_path)
    text = result if isinstance(result, str) else json.dumps(result)
    leaks = [what for what, pattern in _secrets(wrong_verdict, bundle) if pattern.search(text)]
    assert leaks == [], (door, leaks)
    rows = set(re.findall(r"hidden case \d+ of \d+", text))
    assert (rows == set()) if level is FeedbackLevel.SCORE else len(rows) == 18, (door, rows)
