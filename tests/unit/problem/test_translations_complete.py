"""Every shipped problem speaks French and Russian in full, and no translation dropped a formula or a code span.

A learner whose language a bundle has must never read half the exercise in English, and a translated message
that lost `x.shape[-2]` or a `$...$` formula teaches something else than the English one."""

from __future__ import annotations

import pytest

from judge.problem.loader import load_problem
from judge.problem.locate import PROBLEMS_DIR
from judge.problem.translations import LANGUAGES, missing, spans, statement, text_drift

PROBLEMS = sorted(p.name for p in PROBLEMS_DIR.iterdir() if (p / "problem.yaml").is_file())


def test_the_course_has_its_eleven_problems():
    assert len(PROBLEMS) == 11, PROBLEMS


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("problem", PROBLEMS)
def test_every_problem_is_complete(problem, lang):
    bundle = load_problem(PROBLEMS_DIR / problem)
    assert missing(bundle, lang) == [], f"{problem} lacks in {lang}: {missing(bundle, lang)}"
    text, used = statement(bundle, lang)
    assert used == lang and text != bundle.statement
    assert len(spans(text)) == len(spans(bundle.statement)) > 0
    assert text_drift(bundle, lang) == [], text_drift(bundle, lang)


def test_the_span_check_sees_a_dropped_formula():
    from judge.problem.translations import dropped_spans

    assert dropped_spans("take `x.shape[-2]` and $w_i$", "prenez `x.shape[-2]` et $w_i$") is None
    assert dropped_spans("take `x.shape[-2]` and $w_i$", "prenez x et $w_i$") == \
        "code spans: 1 in English, 0 here; names of the code missing: x.shape"
    assert dropped_spans("T is x.shape[-2], not d_model", "T vaut x.shape[0]") == \
        "names of the code missing: d_model"
    block = "Example:\n```\n[0.5, 1.5]\n```\n"
    assert dropped_spans(block, block.replace("Example", "Exemple")) is None
    assert dropped_spans(block, block.replace("0.5", "0,5")) == \
        "a code block differs from the English one (code and numbers stay as they are)"
