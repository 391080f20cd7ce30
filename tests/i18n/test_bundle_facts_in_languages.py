"""The facts sinusoidal-pe's own code reads off a learner's output, said in the learner's language.

``family_recover`` reports the frequencies row 1 gives and the exponent they imply as fact ids with parameters;
the learner reads them from the bundle's translations, numbers with the language's decimal comma, in the text
report and in a platform's result file, with no English sentence left."""

from __future__ import annotations

import json

import pytest

from tests.support.common import PROBLEM_DIR, SUBMISSIONS
from tests.support.i18n import english_sentences

#: A wrong answer (the exponent uses i, not 2i, over d_model) whose report shows both facts.
EXAMPLE = "wrong_answer/rw_blog_i_over_d_concat.py"
SAID = {"fr": ("la ligne 1 donne les fréquences", "10000^(-0,2) ; celui de l'exercice : w_1 = 10000^(-0,4)"),
        "ru": ("строка 1 даёт частоты", "10000^(-0,2); в задаче w_1 = 10000^(-0,4)")}


@pytest.fixture(scope="module")
def facts_verdict(judge):
    from judge.problem.loader import load_problem

    source = (SUBMISSIONS / EXAMPLE).read_text()
    return judge.grade(source.encode(), PROBLEM_DIR, name="sinusoidal_pe.py"), load_problem(PROBLEM_DIR), source


def test_the_facts_are_ids_with_their_english_texts_beside(facts_verdict):
    verdict, _, _ = facts_verdict
    facts = verdict.recovered.facts
    assert len(facts) == 2 and facts[0].startswith("case ex-table-2x5: row 1 gives the frequencies"), facts
    assert facts[1] == "case ex-table-2x5: w_1 = 10000^(-0.2); the exercise's w_1 = 10000^(-0.4) (2i/d_model)"
    stored = json.loads(verdict.model_dump_json())["recovered"]["said_facts"]   # what the service keeps
    assert [r["params"]["fact"]["params"]["key"] for r in stored] == ["frequencies", "exponent"]
    assert stored[1]["params"]["fact"]["params"]["values"] == {"base": 10000.0, "exponent": -0.2, "expected": -0.4}


@pytest.mark.parametrize("lang", ["fr", "ru"])
def test_the_facts_are_said_in_the_learners_language(facts_verdict, lang):
    from judge.formats import export_for_learners
    from judge.formats.learner import learner_view
    from judge.formats.text import render_text
    from judge.i18n.localize import localize
    from judge.verdict import Verdict

    verdict, bundle, source = facts_verdict
    shown = localize(learner_view(verdict, bundle.spec.feedback), lang, bundle)
    facts = shown.recovered.facts
    assert SAID[lang][0] in facts[0] and SAID[lang][1] in facts[1], facts
    stored = Verdict.model_validate_json(verdict.model_dump_json())   # a verdict read back from the store
    assert localize(stored, lang, bundle).recovered.facts == facts
    assert not [line for f in facts for line in english_sentences(f)], facts
    report = render_text(shown, lang=lang)
    assert all(f.split(": ", 1)[1][:30] in report.replace("\n", " ") for f in facts), report
    fact_lines = [line for line in report.splitlines() if "w_1" in line or "w_i" in line]
    assert fact_lines and not [line for line in fact_lines for line in english_sentences(line, source)], report
    exported = json.loads(export_for_learners(verdict, "gradescope", bundle, lang))
    assert SAID[lang][1] in exported["output"].replace("\n", " "), exported["output"]
