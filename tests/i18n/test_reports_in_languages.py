"""Example submissions graded once, their reports rendered in French and Russian: no English sentence left.

Each submission is graded once (module scope, one warm Judge) and rendered several ways: the full text report, the
learner's view (the bundle's feedback policy) as text, the learner-facing JSON messages, and the Gradescope,
PrairieLearn and Exercism result files a learner reads.  Besides one example per verdict of several problems, every
wrong answer and runtime error of sinusoidal-pe and rotary-embedding: their reports embed the bundle's words (axis,
pair and leading-axes names, the recovered formula's components), which must come in the learner's language too.
The detector (tests/support/i18n.py) looks for English function words outside code, identifiers, numbers and the
learner's or Python's own words (what the counterexample quotes of the learner's code, their source's lines); the
facts the bundle's own code reads off an output (its mistakes.py) are its words, left out.  Texts a bundle words
itself (its named mistakes' explanations, its property checks) are the bundle's translations' to give
(judge.problem.translations); until a judge has that module they are left out of the search, and with it they are
searched too."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from judge.cli import main
from judge.formats import export_for_learners
from judge.formats.learner import learner_view
from judge.formats.text import render_text
from judge.i18n.localize import localize
from judge.i18n.messages import GENERIC_MISTAKES
from judge.problem.loader import load_problem
from judge.verdict import CapturedOutput, Verdict
from tests.support.common import PROBLEM_DIR
from tests.support.i18n import english_sentences

REPO = Path(__file__).resolve().parents[2]
#: One submission per verdict and problem, in the learner's shapes (submissions/<problem>/<verdict>/).
EXAMPLES = [
    "gelu/wrong_answer/square_not_cube.py", "gelu/runtime_error/math_on_arrays.py",
    "gelu/compile_error/imports_scipy.py", "gelu/accepted/vectorised.py",
    "softmax/wrong_answer/forum_answer_axis0.py", "layer-norm/runtime_error/unpacks_two_axes.py",
    "attention/wrong_answer/exp_without_shift.py", "cross-entropy/wrong_answer/bits_not_nats.py",
    *sorted(f"{p.parent.parent.name}/{p.parent.name}/{p.name}"
            for problem in ("sinusoidal-pe", "rotary-embedding") for folder in ("wrong_answer", "runtime_error")
            for p in (Path(__file__).resolve().parents[2] / "submissions" / problem / folder).iterdir()
            if p.suffix in (".py", ".ipynb")),
]
#: The learner-facing result files checked (JUnit is for an author's CI, json the teacher's whole verdict).
EXPORTS = ("gradescope", "prairielearn", "exercism")
BUNDLE_TRANSLATIONS = importlib.util.find_spec("judge.problem.translations") is not None


def _problems_dir() -> Path:
    return PROBLEM_DIR.parent


@pytest.fixture(scope="module")
def examples_graded(judge) -> dict[str, tuple[Verdict, object, str]]:
    out = {}
    for example in EXAMPLES:
        path = REPO / "submissions" / example
        if not path.exists():
            pytest.fail(f"{example} is gone: pick another example of its verdict")
        problem = example.split("/")[0]
        bundle = load_problem(_problems_dir() / problem)
        source = path.read_text()
        out[example] = (judge.grade(source, _problems_dir() / problem, name=path.name), bundle, source)
    return out


def _judges_words_only(verdict: Verdict) -> Verdict:
    """The verdict without what the learner printed (their words) and, without the bundles' translations, without
    the texts the bundle words."""
    update: dict = {"stdout": CapturedOutput(), "stderr": CapturedOutput(), "load_output": None,
                    "cases": [c.model_copy(update={"output": None}) for c in verdict.cases]}
    if verdict.counterexample is not None and not verdict.counterexample.got_said:  # the learner's code's words
        update["counterexample"] = verdict.counterexample.model_copy(update={"got_text": ""})
    if not BUNDLE_TRANSLATIONS:
        update["diagnoses"] = [d if d.id in GENERIC_MISTAKES and d.message == GENERIC_MISTAKES[d.id].text
                               else d.model_copy(update={"message": ""}) for d in verdict.diagnoses]
        update["checks"] = [c.model_copy(update={"description": ""}) for c in verdict.checks]
    return verdict.model_copy(update=update)


def _strings(value: object) -> list[str]:
    """Every text a result file holds, its keys aside (the platforms' field names)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


@pytest.mark.parametrize("lang", ["fr", "ru"])
def test_every_examples_reports_are_in_the_language(examples_graded, lang):
    english = {}
    for example, (verdict, bundle, source) in examples_graded.items():
        full = _judges_words_only(verdict)
        view = _judges_words_only(learner_view(verdict, bundle.spec.feedback))
        texts = [render_text(localize(full, lang, bundle), lang=lang),
                 render_text(localize(view, lang, bundle), lang=lang)]
        shown = localize(view, lang, bundle)
        texts += [shown.message] + [c.message for c in shown.cases] + [p.description for p in shown.patterns]
        texts += [text for fmt in EXPORTS
                  for text in _strings(json.loads(export_for_learners(full, fmt, bundle, lang)))]
        found = [line for text in texts for line in english_sentences(text, source)]
        if found:
            english[example] = found[:5]
    assert english == {}, english


def test_english_stays_as_it_was(examples_graded):
    verdict, bundle, _ = examples_graded["gelu/wrong_answer/square_not_cube.py"]
    text = render_text(localize(verdict, "en", bundle), lang="en")
    assert "wrong answer" in text and "values" in text and "differ from the expected ones" in text


def test_the_learner_json_messages_follow_the_language(examples_graded):
    verdict, bundle, _ = examples_graded["gelu/wrong_answer/square_not_cube.py"]
    for lang, word in (("fr", "valeurs sur"), ("ru", "вне допуска")):
        exported = json.loads(export_for_learners(verdict, "prairielearn", bundle, lang=lang))
        assert word in exported["tests"][0]["message"], lang


def test_the_cli_takes_lang_and_the_environments_locale(judge, monkeypatch):
    # --problems-dir sets JUDGE_PROBLEMS_DIR for the processes the command starts; in this process (CliRunner)
    # it would outlive the test and point every later kernel's check() at problems/: undone at teardown
    monkeypatch.setenv("JUDGE_PROBLEMS_DIR", str(_problems_dir()))
    example = str(REPO / "submissions" / "gelu" / "compile_error" / "imports_scipy.py")
    runner = CliRunner()
    french = runner.invoke(main, ["grade", "-p", "gelu", "--problems-dir", str(_problems_dir()), "--lang", "fr-FR",
                                  example], env={"LANG": "ru_RU.UTF-8"})
    assert "erreur de compilation" in french.output and "n'est pas autorisé" in french.output, french.output
    russian = runner.invoke(main, ["grade", "-p", "gelu", "--problems-dir", str(_problems_dir()), example],
                            env={"LC_ALL": "", "LC_MESSAGES": "ru_RU.UTF-8", "LANG": "fr_FR.UTF-8"})
    assert "ошибка компиляции" in russian.output, russian.output
    english = runner.invoke(main, ["grade", "-p", "gelu", "--problems-dir", str(_problems_dir()), example],
                            env={"LC_ALL": "C", "LANG": "fr_FR.UTF-8"})
    assert "compile error" in english.output and "is not allowed" in english.output, english.output
