"""What a learner gets for the same wrong answer at each feedback level, through each door, and what the teacher
keeps (real submissions, graded in the real sandbox).

The submissions: ``runtime_error/rw_pytorch_tutorial_odd.py`` crashes on odd d_model with numpy's own message
naming the hidden case's shape (``could not broadcast input array from shape (50,17) ...``);
``wrong_answer/odd_last_column_not_zero.py`` gets odd tables wrong.  Hidden ids of sinusoidal-pe carry their
arguments (``table-odd-33``, ``table-base-100``), so no level but ``full`` may show them.
"""

from __future__ import annotations

import dataclasses
import json
import re
import shutil
import subprocess
import sys
from datetime import UTC, datetime, timedelta

import pytest

from judge.errors import BundleError
from judge.problem.feedback_policy import FeedbackLevel, FeedbackPolicy
from tests.support.common import REPO, SUBMISSIONS, require_sandbox

EXAMPLES = [("runtime_error", "rw_pytorch_tutorial_odd.py"), ("wrong_answer", "odd_last_column_not_zero.py")]
LEVELS = [FeedbackLevel.SCORE, FeedbackLevel.STATUS, FeedbackLevel.DIAGNOSIS]
DOORS = ["gradescope", "exercism", "prairielearn", "page"]
#: What a hidden row may say at each level (its last line; an exporter may put the status first).
_PREFIX = r"((wrong answer|runtime error|time limit exceeded|memory limit exceeded|skipped|internal error): )?"
_ENDS = r"|time limit exceeded|memory limit exceeded|not run: an earlier case ended the process|internal error)"
HIDDEN_TEXT = {
    FeedbackLevel.STATUS: _PREFIX + r"(accepted|wrong answer|raised an exception" + _ENDS,
    FeedbackLevel.DIAGNOSIS: _PREFIX + r"(accepted|wrong answer|raised [A-Za-z_.]+|raised an exception" + _ENDS
                             + r"(: \d+% of the values out of tolerance)?",
}
_graded: dict = {}


@pytest.fixture
def graded_examples(judge):
    def get(status: str, name: str):
        if (status, name) not in _graded:
            _graded[(status, name)] = judge.grade((SUBMISSIONS / status / name).read_bytes(), "sinusoidal-pe")
        return _graded[(status, name)]
    return get, judge.problem("sinusoidal-pe").bundle


def _with_policy(bundle, policy: FeedbackPolicy):
    """The same bundle, stating ``policy`` in its problem.yaml."""
    spec = bundle.spec.model_copy(update={"feedback": policy})
    assert "feedback" in spec.model_fields_set
    return dataclasses.replace(bundle, spec=spec)


def _hidden_ids(bundle) -> list[str]:
    return [c.id for c in bundle.cases.cases if c.visibility != "public"]


def _hidden_shapes(verdict) -> set[str]:
    """Shapes numpy printed in hidden cases' messages, and their expected shapes, as a learner would read them."""
    found = set()
    for case in verdict.cases:
        if case.visibility == "hidden":
            found |= {m.replace(" ", "") for m in re.findall(r"\(\d+, ?\d+\)", case.message)}
            if case.expected_shape and len(case.expected_shape) == 2 and min(case.expected_shape) > 5:
                found.add("({},{})".format(*case.expected_shape))
    public = {m.replace(" ", "") for c in verdict.cases if c.visibility == "public"
              for m in re.findall(r"\(\d+, ?\d+\)", c.message)}
    return found - public


def _door(door: str, verdict, bundle, policy: FeedbackPolicy) -> tuple[str, list[tuple[str, str]]]:
    """(the whole text a learner can read, [(hidden row's name, its text)]) through ``door``."""
    from judge.formats import export_for_learners
    from judge.service.lti.learner_view import learner_verdict

    if door == "page":
        view = learner_verdict(verdict.model_dump(mode="json"), policy)
        assert view is not None
        rows = [(c["id"], c["message"]) for c in view["cases"] if c["visibility"] == "hidden"]
        return json.dumps(view), rows
    data = json.loads(export_for_learners(verdict, door, _with_policy(bundle, policy)))
    key = "output" if door == "gradescope" else "message"
    rows = [(t["name"].split(":")[0], t.get(key) or "") for t in data["tests"] if t["name"].startswith("hidden case")
            or re.match(r"\d+ hidden cases", t["name"])]
    return json.dumps(data), rows


def _row_text(text: str) -> str:
    """A row's own words: its last line (the case's message; the lines above are the verdict-wide summary,
    pattern and mistake)."""
    lines = text.strip().splitlines()
    return lines[-1] if lines else "accepted"   # a passing test may have no message


@pytest.mark.parametrize("example", EXAMPLES, ids=[e[1] for e in EXAMPLES])
@pytest.mark.parametrize("level", LEVELS, ids=[lv.value for lv in LEVELS])
@pytest.mark.parametrize("door", DOORS)
def test_a_learner_sees_no_hidden_id_shape_or_argument(graded_examples, example, level, door):
    get, bundle = graded_examples
    verdict = get(*example)
    assert verdict.status.value == example[0]
    text, rows = _door(door, verdict, bundle, FeedbackPolicy(hidden=level))
    for case_id in _hidden_ids(bundle):
        assert not re.search(rf"(?<![\w-]){re.escape(case_id)}(?![\w-])", text), (case_id, door, level)
    for shape in _hidden_shapes(verdict):
        assert shape not in text.replace(" ", ""), (shape, door, level)
    hidden = sum(c.visibility == "hidden" for c in verdict.cases)
    if level is FeedbackLevel.SCORE:
        assert all(not name.startswith("hidden case") for name, _ in rows), rows
        if door != "page":
            assert [name for name, _ in rows] == [f"{hidden} hidden cases"]
        return
    assert [name for name, _ in rows] == [f"hidden case {k} of {hidden}" for k in range(1, hidden + 1)]
    for name, row in rows:
        assert re.fullmatch(HIDDEN_TEXT[level], _row_text(row)), (name, row)


@pytest.mark.parametrize("example", EXAMPLES, ids=[e[1] for e in EXAMPLES])
def test_the_teacher_keeps_the_whole_verdict(graded_examples, example):
    """The verdict (judge grade --format json, the platform API) names hidden cases and keeps their messages."""
    get, bundle = graded_examples
    verdict = get(*example)
    text = verdict.model_dump_json()
    assert "table-odd-33" in text and verdict.shown is None
    assert any(c.expected_shape == [50, 33] for c in verdict.cases if c.id == "table-odd-33")


def test_status_and_score_keep_only_what_public_cases_show(graded_examples):
    """Below diagnosis, a pattern or mistake seen only on hidden cases is not shown (it tells of their inputs)."""
    from judge.formats.learner import learner_view

    get, _ = graded_examples
    verdict = get("wrong_answer", "odd_last_column_not_zero.py")
    assert verdict.patterns, "the example has a failure pattern to withhold"
    rich = learner_view(verdict, FeedbackPolicy(hidden=FeedbackLevel.DIAGNOSIS))
    assert rich.patterns and all(i.startswith("hidden case") or i in {c.id for c in verdict.cases
                                                                      if c.visibility == "public"}
                                 for p in rich.patterns for i in p.cases)
    for level in (FeedbackLevel.STATUS, FeedbackLevel.SCORE):
        view = learner_view(verdict, FeedbackPolicy(hidden=level))
        assert all(not i.startswith("hidden case") for p in view.patterns for i in p.cases)
        assert all(not i.startswith("hidden case") for d in view.diagnoses for i in d.cases)
        assert view.score == verdict.score and view.status == verdict.status


def test_full_and_named_ids_show_what_the_policy_says(graded_examples):
    from judge.formats.learner import learner_view

    get, _ = graded_examples
    verdict = get("runtime_error", "rw_pytorch_tutorial_odd.py")
    assert learner_view(verdict, FeedbackPolicy(hidden=FeedbackLevel.FULL)).cases == verdict.cases
    named = learner_view(verdict, FeedbackPolicy(hidden_ids=True))
    assert [c.id for c in named.cases] == [c.id for c in verdict.cases]
    assert "(50,17)" not in named.model_dump_json().replace(" ", "")


def test_a_due_date_reveals_more_after_it(graded_examples):
    from judge.formats.learner import learner_view

    get, _ = graded_examples
    verdict = get("runtime_error", "rw_pytorch_tutorial_odd.py")
    due = datetime(2026, 1, 15, 12, tzinfo=UTC)
    policy = FeedbackPolicy(hidden=FeedbackLevel.SCORE, due=due, after_due=FeedbackLevel.DIAGNOSIS)
    before = learner_view(verdict, policy, now=due - timedelta(seconds=1))
    after = learner_view(verdict, policy, now=due)
    assert before.shown is not None and before.shown.level == "score" and before.shown.more_after == due.isoformat()
    assert all(c.visibility == "public" for c in before.cases)
    assert after.shown is not None and after.shown.level == "diagnosis" and after.shown.more_after is None
    assert sum(c.visibility == "hidden" for c in after.cases) == 18


def test_the_probing_limit_cuts_to_the_score_until_the_due_date(graded_examples):
    """A submission past the limit shows the score and public cases, and when more comes back; from the due date
    on, the after-due level shows it like any other (the limit guards the hidden cases while they are secret)."""
    from judge.formats.learner import learner_view
    from judge.problem.feedback_policy import ProbeLimit

    get, _ = graded_examples
    verdict = get("runtime_error", "rw_pytorch_tutorial_odd.py")
    due = datetime(2026, 1, 15, 12, tzinfo=UTC)
    back = due - timedelta(hours=2)
    policy = FeedbackPolicy(hidden=FeedbackLevel.STATUS, due=due, after_due=FeedbackLevel.DIAGNOSIS,
                            probes=ProbeLimit.parse("3/1h"))
    cut = learner_view(verdict, policy, now=due - timedelta(hours=3), probes_back_at=back)
    assert cut.shown is not None and cut.shown.level == "score" and cut.shown.probes_exceeded
    assert cut.shown.probes_back_at == back.isoformat() and back.isoformat() in cut.message
    assert all(c.visibility == "public" for c in cut.cases) and cut.shown.withheld_cases == 18
    within = learner_view(verdict, policy, now=due - timedelta(hours=3))
    assert within.shown is not None and within.shown.level == "status" and not within.shown.probes_exceeded
    after = learner_view(verdict, policy, now=due, probes_back_at=back)
    assert after.shown is not None and after.shown.level == "diagnosis" and not after.shown.probes_exceeded


def test_gradescope_visibility_follows_the_policy(graded_examples):
    from judge.formats.gradescope import for_learners

    get, bundle = graded_examples
    verdict = get("runtime_error", "rw_pytorch_tutorial_odd.py")

    def hidden_rows(data):
        return [t for t in data["tests"] if "hidden case" in t["name"]]

    unstated = for_learners(verdict, bundle)   # no feedback: section: as Gradescope packages always did
    assert {t["visibility"] for t in hidden_rows(unstated)} == {"after_due_date"}
    stated = for_learners(verdict, _with_policy(bundle, FeedbackPolicy(hidden=FeedbackLevel.STATUS)))
    assert {t["visibility"] for t in hidden_rows(stated)} == {"visible"}
    due = FeedbackPolicy(hidden=FeedbackLevel.SCORE, due=datetime(2026, 1, 1, tzinfo=UTC),
                         after_due=FeedbackLevel.DIAGNOSIS)
    released = for_learners(verdict, _with_policy(bundle, due))
    rows = hidden_rows(released)
    assert len(rows) == 18 and {t["visibility"] for t in rows} == {"after_due_date"}
    assert "raised ValueError" in "".join(t["output"] for t in rows)
    assert "pattern" not in released["output"].lower() and "Crashes" not in released["output"]
    score_only = for_learners(verdict, _with_policy(bundle, FeedbackPolicy(hidden=FeedbackLevel.SCORE)))
    assert [t["name"] for t in hidden_rows(score_only)] == ["18 hidden cases"]
    passed = sum(c.status.value == "accepted" for c in verdict.cases if c.visibility == "hidden")
    assert f"hidden cases: {passed} of 18 passed" in score_only["output"]   # never "all passed" alone
    assert score_only["score"] == pytest.approx(unstated["score"])


def test_judge_grade_exports_withhold_as_the_packaged_runners_do():
    """The local --format exports: today they printed the hidden ids and numpy's shapes of the hidden cases."""
    require_sandbox()
    example = SUBMISSIONS / "runtime_error" / "rw_pytorch_tutorial_odd.py"
    for fmt in ("gradescope", "exercism", "prairielearn"):
        p = subprocess.run([sys.executable, "-m", "judge.cli", "grade", str(example), "-p", "sinusoidal-pe",
                            "--format", fmt], cwd=REPO, capture_output=True, timeout=300)
        out = p.stdout.decode()
        assert p.returncode == 1 and out, p.stderr.decode()[-2000:]
        assert "table-odd-33" not in out and "add-3-leading-axes" not in out, fmt
        assert not re.search(r"shape \(50, ?1[67]\)", out), (fmt, out[:3000])
        assert "hidden case 4 of 18" in out, fmt


def test_problem_yaml_states_the_policy_and_a_bad_one_is_a_clear_error(tmp_path):
    """feedback: in problem.yaml reaches every door through the bundle; a bad one names the file and line."""
    from judge.problem.loader import load_problem

    root = tmp_path / "sinusoidal-pe"
    shutil.copytree(REPO / "problems" / "sinusoidal-pe", root)
    spec = root / "problem.yaml"
    text = spec.read_text()
    spec.write_text(text + "feedback:\n  hidden: score\n")
    assert load_problem(root).spec.feedback.hidden is FeedbackLevel.SCORE
    spec.write_text(text + "feedback:\n  hidden: everything\n")
    with pytest.raises(BundleError) as err:
        load_problem(root)
    assert "problem.yaml" in str(err.value) and "feedback" in str(err.value) and "Traceback" not in str(err.value)
    spec.write_text(text + "feedback:\n  hidden: diagnosis\n  due: 2026-01-01T00:00:00Z\n")
    with pytest.raises(BundleError, match="due and after_due go together"):
        load_problem(root)
    spec.write_text(text + "feedback:\n  hidden: diagnosis\n  due: 2026-01-01T00:00:00Z\n  after_due: status\n")
    with pytest.raises(BundleError, match="a due date only reveals more"):
        load_problem(root)


def test_check_returns_the_learners_view(graded_examples):
    """check() in a learner's kernel (here: on a file) gets the cut verdict, hidden ids and shapes withheld."""
    require_sandbox()
    from judge.notebook_check import grade_here

    _, bundle = graded_examples
    checked, line = grade_here(bundle.root, source=SUBMISSIONS / "runtime_error" / "rw_pytorch_tutorial_odd.py")
    text = checked.model_dump_json()
    assert "table-odd-33" not in text and "(50,17)" not in text.replace(" ", "")
    assert checked.shown is not None and checked.shown.level == "diagnosis"
    assert re.search(r"hidden cases: \d+ of 18 passed", line), line


#: A learner who names an exception class after the call's arguments, to read hidden cases through the message.
CLASS_NAME_PROBE = '''import numpy as np


def sinusoidal_pe(max_len, d_model, base=10000.0):
    raise type(f"Leak_{max_len}_{d_model}", (Exception,), {})("nothing else")


def add_positional_encoding(x, base=10000.0):
    raise type("Leak_" + "_".join(map(str, np.shape(x))), (Exception,), {})("nothing else")
'''


def test_a_class_the_learner_defines_is_never_named_for_a_hidden_case(judge):
    """An exception's class name is the learner's text: below ``full``, a hidden case names only Python's and
    numpy's exception classes ("raised ValueError"), never one the learner made ("raised an exception")."""
    require_sandbox()
    from judge.formats.learner import learner_view

    verdict = judge.grade(CLASS_NAME_PROBE, "sinusoidal-pe")
    assert "Leak_50_33" in verdict.model_dump_json()  # the teacher's verdict: the channel is real
    for level in (FeedbackLevel.DIAGNOSIS, FeedbackLevel.STATUS):
        view = learner_view(verdict, FeedbackPolicy(hidden=level))
        hidden = [c for c in view.cases if c.visibility == "hidden"]
        assert hidden and all(c.message == "raised an exception" for c in hidden), [c.message for c in hidden]
        public = "".join(c.message for c in view.cases if c.visibility == "public")
        assert "Leak_" in public  # public cases keep the learner's own message, as before
        assert "Leak_50_33" not in view.model_dump_json()  # table-odd-33's arguments, anywhere
