"""The course: nine more transformer exercises as bundles, each verified, listed and packaged in course order.

Every problem of problems/course.yaml but sinusoidal-pe (tests/grading/test_cli.py verifies it) is verified here as
`judge verify` does it: the reference passes, every example in submissions/<id>/ gets its folder's status and
its `# diagnosis:` name (learner-shaped files beyond the bank's own implementations included, `none` where no
name may be given), the kill matrix catches every bank mistake with a hidden case, no tolerance or statement
error.  The rest is unit-level: the course file, `judge problems`, packaging several problems, the learner
page's list.
"""

from __future__ import annotations

import json
import re
import shutil

import pytest
from click.testing import CliRunner

from judge.cli import main
from judge.errors import BundleError
from judge.problem.course import find_course, in_course_order, load_course
from tests.support.common import REPO, require_sandbox

COURSE = ["sinusoidal-pe", "rotary-embedding", "softmax", "attention", "multi-head", "layer-norm", "rms-norm", "gelu",
          "cross-entropy", "linear-backward", "adam-step"]
NEW = COURSE[2:]


def test_the_course_lists_the_eleven_problems_in_order():
    course = find_course()
    assert course is not None and course.spec.problems == COURSE
    out = CliRunner().invoke(main, ["problems"]).output.splitlines()
    assert out[0] == "Transformers in numpy (11 problems, in course order)"
    listed = [line.split()[1] for line in out[1:] if re.match(r"^\s*\d+\. ", line)]
    assert listed == COURSE, out
    assert all("BROKEN" not in line for line in out)
    assert any(" 9. cross-entropy      Cross-entropy loss  (cross_entropy; " in line for line in out), out
    assert out[1].endswith(str(REPO / "problems")), out  # under the folder the problems come from


def test_a_broken_course_file_names_file_line_and_problem(tmp_path):
    shutil.copytree(REPO / "problems" / "softmax", tmp_path / "softmax")
    (tmp_path / "course.yaml").write_text("schema_version: 1\ntitle: T\nproblems:\n  - softmax\n  - no-such-problem\n")
    with pytest.raises(BundleError) as caught:
        load_course(tmp_path)
    assert "course.yaml:5" in str(caught.value) and "no-such-problem" in str(caught.value)
    (tmp_path / "course.yaml").write_text("schema_version: 1\ntitle: T\nproblems: [softmax, softmax]\n")
    with pytest.raises(BundleError, match="listed twice"):
        load_course(tmp_path)
    # an id is a bundle's id, never a path (the learner page links to /learn/<id>): a bundle outside the folder is
    # not the course's, even where the path leads to one
    inner = tmp_path / "inner"
    inner.mkdir()
    (inner / "course.yaml").write_text("schema_version: 1\ntitle: T\nproblems: [../softmax]\n")
    with pytest.raises(BundleError, match="course.yaml:3.*pattern"):
        load_course(inner)
    (tmp_path / "course.yaml").unlink()
    assert load_course(tmp_path) is None
    assert in_course_order(["b", "softmax", "a"], None) == ["a", "b", "softmax"]


def test_package_several_problems_at_once(tmp_path):
    """A notebook hand-out per problem, an otter test file per problem (no wheels: nothing downloaded); the
    course's order with --course."""
    result = CliRunner().invoke(main, ["package", "notebook", "--course", "-o", str(tmp_path / "nb")])
    assert result.exit_code == 0, result.output
    assert sorted(p.stem for p in (tmp_path / "nb").glob("*.ipynb")) == sorted(COURSE)
    recorded = json.loads((tmp_path / "nb" / "linear-backward" / "recorded" / "index.json").read_text())
    assert all(name.endswith(".npz") for name in recorded["reference"]["linear_backward"].values())  # tuples
    result = CliRunner().invoke(main, ["package", "otter", "softmax", "gelu", "softmax", "-o", str(tmp_path / "ot")])
    assert result.exit_code == 0 and sorted(p.name for p in (tmp_path / "ot" / "tests").iterdir()) == ["gelu.py",
                                                                                                     "softmax.py"]
    result = CliRunner().invoke(main, ["package", "notebook", "-o", str(tmp_path / "x")])
    assert result.exit_code == 2 and "name at least one PROBLEM, or --course" in result.output


def test_the_learner_page_lists_the_course():
    from judge.service.lti.page import render_page
    from judge.service.lti.tables import LearnerSession
    from judge.service.problems import course_listing, detail

    listing = course_listing()
    assert [p["id"] for p in listing["problems"]] == COURSE and listing["title"] == "Transformers in numpy"
    session = LearnerSession(handle="h", learner="l" * 16, problem="softmax", csrf="c", user_id=None, name=None,
                             issuer=None, client_id=None, ags=None)
    html = render_page(detail("softmax"), session, listing)
    assert '<li aria-current="page"><strong>Softmax</strong></li>' in html
    assert '<a href="/learn/attention">Scaled dot-product attention</a>' in html
    lti = LearnerSession(**{**session.__dict__, "issuer": "https://lms.example"})
    html = render_page(detail("softmax"), lti, listing)
    assert "<li>Scaled dot-product attention</li>" in html and 'href="/learn/' not in html


@pytest.mark.parametrize("problem", COURSE[1:])
def test_course_problem_verifies(problem):
    """judge verify on the bundle: every row ok (examples' statuses and names), no report error, every bank mistake
    caught by a hidden case, the hidden cases' ids saying nothing about their arguments."""
    require_sandbox()
    from judge.authoring.verify import verify_problem

    lines: list[str] = []
    report = verify_problem(problem, echo=lines.append, workers=2)
    failing = [r for r in report.rows if not r.ok]
    assert report.ok, "\n".join(f"{r.item}: expected {r.expected}, got {r.got} {r.detail}" for r in failing) + \
        "\n" + "\n".join(f.line() for f in report.author.findings if f.level == "error")
    hidden = {c.id for c in report.author.cases if c.visibility == "hidden"}
    for killer in report.author.killers:
        assert set(killer.caught_by()) & hidden, f"{killer.name} is caught by no hidden case"
    if problem in NEW:
        assert all(re.fullmatch(r"c\d\d", case_id) for case_id in hidden)
        named = [r for r in report.rows if "/" in r.expected and r.expected.split("/")[1] != "none"]
        unnamed = [r for r in report.rows if r.expected.endswith("/none")]
        assert len(named) >= 4 and unnamed, (problem, [r.item for r in report.rows])


def test_every_new_problem_has_learner_files_beyond_the_bank():
    """Each bank names the issue's classic mistakes, and the wrong examples are learner-shaped files of their own
    (not the bank's functions), several accepted formulations each."""
    from judge.problem.loader import load_problem

    wanted = {
        "softmax": {"no_max_subtraction", "axis_ignored", "keepdims_forgotten"},
        "layer-norm": {"ddof_one", "eps_outside_sqrt", "batch_axis"},
        "attention": {"no_scale", "softmax_over_queries", "mask_after_softmax", "large_negative_mask",
                      "mask_inverted"},
        "multi-head": {"reshape_without_transpose", "strided_heads"},
        "cross-entropy": {"naive_softmax", "sum_not_mean", "probability_clip"},
        "adam-step": {"no_bias_correction", "eps_inside_sqrt", "t_from_zero", "betas_swapped"},
    }
    for problem in NEW:
        bank = load_problem(problem).bank
        ids = {m.id for m in bank.spec.mistakes}
        assert wanted.get(problem, set()) <= ids, problem
        examples = REPO / "submissions" / problem
        assert len(list((examples / "accepted").glob("*.py"))) >= 4, problem
        wrong = list((examples / "wrong_answer").glob("*.py"))
        implementations = {a for m in bank.spec.mistakes for a in m.implements.values()}
        for path in wrong:
            text = path.read_text()
            assert "# diagnosis:" in text and not any(f"def {name}(" in text for name in implementations), path
