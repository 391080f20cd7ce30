"""Every example submission graded once, its reports rendered in French and Russian at every door: no English
sentence left.

Every example file of every problem (submissions/<problem>/<verdict>/*.py and *.ipynb, every verdict folder, the
accepted ones and the red team's included) is graded once (module scope, one warm Judge grading two at a time)
and rendered in each language through every door a learner reads: the full text report; the learner's view (the
bundle's feedback policy) as text; its JSON messages (the verdict's message, the cases' messages, the patterns);
the Gradescope, PrairieLearn and Exercism result files; the learner page (the page API's view of the stored
verdict, :func:`judge.service.learner_view.learner_verdict`, as the page's script shows it); and ``check()``'s
report (:func:`judge.notebook_check.learner_check`, then its text report and its HTML one).

The judge is not phased: the learner-facing doors grade the public cases in a run of their own first, then the
hidden ones, at about a fifth more time.  Grading every example both ways once, the learner's view (status,
messages, patterns, named mistakes) was the same for 261 of the 266 files; the other five differ only in the
learner's own words (an exception's text) or in which case a run-wide event lands on, said by the same messages.

The detector (tests/support/i18n.py) looks for English function words outside code, identifiers, numbers and the
learner's or Python's own words (what the counterexample quotes of the learner's code, their source's lines);
what the learner printed is theirs, left out, and so are the facts the bundle's own code reads off an output (its
mistakes.py).  Texts a bundle words itself (its named mistakes' explanations, its property checks) are the
bundle's translations' to give (judge.problem.translations); until a judge has that module they are left out of
the search, and with it they are searched too."""

from __future__ import annotations

import importlib.util
import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from click.testing import CliRunner

from judge.cli import main
from judge.feedback import MessageRef
from judge.formats import export_for_learners
from judge.formats.html import render_html
from judge.formats.text import render_text
from judge.i18n.localize import localize
from judge.i18n.messages import GENERIC_MISTAKES
from judge.notebook_check import learner_check
from judge.problem.loader import Bundle, load_problem
from judge.service.learner_view import learner_verdict
from judge.service.lti.page import script_words
from judge.verdict import CapturedOutput, Verdict
from tests.support.common import PROBLEM_DIR, REPO, require_sandbox
from tests.support.graded_examples import graded
from tests.support.i18n import english_sentences, html_text, page_texts

#: Every example file of every problem, by its path under submissions/ (<problem>/<verdict>/<file>).
EXAMPLES = sorted(str(p.relative_to(REPO / "submissions")) for p in (REPO / "submissions").glob("*/*/*")
                  if p.suffix in (".py", ".ipynb"))
#: The learner-facing result files checked (JUnit is for an author's CI, json the teacher's whole verdict).
EXPORTS = ("gradescope", "prairielearn", "exercism")
BUNDLE_TRANSLATIONS = importlib.util.find_spec("judge.problem.translations") is not None
#: Grades at a time: the sandbox's runs wait on wall-clock limits (a time limit exceeded, a sleeping attack) as
#: much as they compute, so two overlap well on two cores.
AT_ONCE = 2


def _problems_dir() -> Path:
    return PROBLEM_DIR.parent


@pytest.fixture(scope="module")
def examples_graded() -> dict[str, tuple[Verdict, Bundle, str]]:
    require_sandbox()
    from judge import Judge

    assert len(EXAMPLES) > 250 and len({e.split("/")[0] for e in EXAMPLES}) >= 11, EXAMPLES
    bundles = {problem: load_problem(_problems_dir() / problem) for problem in {e.split("/")[0] for e in EXAMPLES}}

    with Judge(workers=AT_ONCE) as judge:
        def grade(example: str) -> tuple[Verdict, Bundle, str]:
            path = REPO / "submissions" / example
            problem = example.split("/")[0]
            # once per session: the named-mistake and notebook tests grade many of these files with the same settings
            return graded(judge, path, _problems_dir() / problem), bundles[problem], path.read_text()

        # the longest first (a time or memory limit runs to its end), so no long run is left alone at the end
        order = sorted(EXAMPLES, key=lambda e: e.split("/")[1] not in ("time_limit_exceeded", "memory_limit_exceeded"))
        with ThreadPoolExecutor(AT_ONCE) as pool:
            return dict(zip(order, pool.map(grade, order)))


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


#: The judge's sentences that quote Python's own words (a SyntaxError's text, json's complaint) as ``error``.
QUOTING_PYTHON = ("source.syntax_error", "notebook.syntax_error", "notebook.not_json", "notebook.not_json_cut",
                  "notebook.unreadable")


def _pythons_words(refs: list) -> tuple[str, ...]:
    """What the verdict's sentences quote of Python's own words: the ``error`` of :data:`QUOTING_PYTHON`'s."""
    words = []
    for ref in refs:
        if ref.id in QUOTING_PYTHON:
            error = ref.params.get("error")
            words.append(error if isinstance(error, str) else str(MessageRef.model_validate(error).params["text"]))
    return tuple(w for w in words if w)


def _strings(value: object) -> list[str]:
    """Every text a result file holds, its keys aside (the platforms' field names)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _doors(verdict: Verdict, bundle: Bundle, lang: str) -> dict[str, list[str]]:
    """What a learner reads of ``verdict`` in ``lang``, by door.  check()'s verdict is the learner's view (the
    bundle's feedback policy) said in the language, as every learner-facing door's: rendered once, it is both the
    learner's view as text and check()'s terminal report, and gives the JSON messages."""
    full = _judges_words_only(verdict)
    checked, headline = learner_check(full, bundle, lang)
    report = render_text(checked, lang=lang).splitlines()
    page = learner_verdict(full.model_dump(mode="json"), bundle.spec.feedback, lang=lang)
    assert page is not None
    return {
        "text report": [render_text(localize(full, lang, bundle), lang=lang)],
        "learner's view, check() text": ["\n".join(report[:1] + [headline] + report[1:])],  # as check() prints it
        "json messages": [checked.message, *(c.message for c in checked.cases),
                          *(p.description for p in checked.patterns)],
        **{fmt: _strings(json.loads(export_for_learners(full, fmt, bundle, lang))) for fmt in EXPORTS},
        "learner page": page_texts(page, script_words(lang)),
        "check() html": [html_text(render_html(checked, headline, None, lang))],
    }


@pytest.mark.parametrize("lang", ["fr", "ru"])
def test_every_examples_reports_are_in_the_language(examples_graded, lang):
    english: dict[str, dict[str, list[str]]] = {}
    for example, (verdict, bundle, source) in examples_graded.items():
        for door, texts in _doors(verdict, bundle, lang).items():
            found = [line for text in texts
                     for line in english_sentences(text, source, _pythons_words(verdict.said))]
            if found:
                english.setdefault(example, {})[door] = found[:3]
    assert english == {}, json.dumps(english, indent=1, ensure_ascii=False)


def test_every_verdict_is_swept(examples_graded):
    """The sweep reaches every verdict the examples are filed under (judge verify checks each file's own)."""
    statuses = {verdict.status.value for verdict, _, _ in examples_graded.values()}
    assert statuses >= {e.split("/")[1] for e in EXAMPLES}, statuses


def test_english_stays_as_it_was(examples_graded):
    verdict, bundle, _ = examples_graded["gelu/wrong_answer/square_not_cube.py"]
    text = render_text(localize(verdict, "en", bundle), lang="en")
    assert "wrong answer" in text and "values" in text and "differ from the expected ones" in text
    checked, headline = learner_check(verdict, bundle, "en")
    html = html_text(render_html(checked, headline, None, "en"))
    assert "wrong answer" in html and "what differs" in html and "public cases:" in html, html


def test_the_learner_json_messages_follow_the_language(examples_graded):
    verdict, bundle, _ = examples_graded["gelu/wrong_answer/square_not_cube.py"]
    for lang, word in (("fr", "valeurs sur"), ("ru", "вне допуска")):
        exported = json.loads(export_for_learners(verdict, "prairielearn", bundle, lang=lang))
        assert word in exported["tests"][0]["message"], lang


def test_checks_html_report_is_in_the_language(examples_graded):
    """check()'s HTML report says its own words in the learner's language, a case's time with the language's
    decimal separator."""
    verdict, bundle, _ = examples_graded["gelu/wrong_answer/square_not_cube.py"]
    for lang, words in (("fr", ("réponse incorrecte", "ce qui diffère")), ("ru", ("неверный ответ", "что отличается"))):
        checked, headline = learner_check(verdict, bundle, lang)
        html = render_html(checked, headline, None, lang)
        assert all(word in html for word in words) and f'lang="{lang}"' in html, html
        times = [f"{c.time_ms:.1f}" for c in checked.cases if c.time_ms is not None]
        assert times and all(t.replace(".", ",") in html for t in times), html


def test_the_cli_takes_lang_and_the_environments_locale(monkeypatch):
    # --problems-dir sets JUDGE_PROBLEMS_DIR for the processes the command starts; in this process (CliRunner)
    # it would outlive the test and point every later kernel's check() at problems/: undone at teardown
    require_sandbox()
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
