"""A verdict's texts rendered in the learner's language, after the learner's view: every judge sentence
translated, numbers in prose written the language's way, the learner's own words untouched, and nothing the
view withholds brought back by the ids it renders."""

from __future__ import annotations

import numpy as np

from judge.formats.learner import learner_view
from judge.formats.text import render_text
from judge.grading.slots import SlotHeader, judge_slot
from judge.grading.terms import Terms
from judge.i18n.localize import first_failing, localize
from judge.problem.feedback_policy import FeedbackPolicy
from judge.sandbox import wire
from judge.verdict import Status, Verdict
from tests.support.i18n import english_sentences

# Fixtures ``prepared`` and ``results``: tests/conftest.py (the sinusoidal-pe bundle, slots written by hand).


def _case(prepared, results, index: int, outcome: str):
    """One case judged from a slot written as the harness writes it."""
    case = prepared.cases[index]
    fields: dict = {"time_ns": 1000, "changed": [], "spans": [0, 0, 0, 0]}
    if outcome == "raised":
        fields.update(outcome=wire.RAISED, message="ValueError: the learner's own words",
                      exception=["ValueError", "Exception"])
        array = None
    else:
        expected = np.asarray(case.expected)
        array = np.zeros((2, 3)) if outcome == "wrong_shape" else expected + 0.5
        if outcome == "changed":
            fields["changed"] = [next(iter(case.spec.args))]
        fields.update(outcome=wire.RETURNED_ARRAY, dtype=array.dtype.str, shape=list(array.shape),
                      nbytes=array.nbytes)
    if array is not None:
        start = case.slot_offset + wire.SLOT_HEADER_SIZE
        results[start:start + array.nbytes] = array.tobytes()
    header = SlotHeader.model_validate(fields)
    function = prepared.bundle.spec.function(case.spec.function)
    return judge_slot(case, header, results, Terms(function, case.expected.shape))


def _verdict(prepared, results) -> Verdict:
    public = [i for i, c in enumerate(prepared.cases) if c.spec.visibility == "public"]
    hidden = [i for i, c in enumerate(prepared.cases) if c.spec.visibility != "public"]
    cases = [_case(prepared, results, public[0], "wrong"), _case(prepared, results, public[1], "raised"),
             _case(prepared, results, hidden[0], "wrong_shape"), _case(prepared, results, hidden[1], "wrong")]
    return Verdict(status=Status.WRONG_ANSWER, score=0.0, problem="sinusoidal-pe", cases=cases,
                   message=f"first failing case {cases[0].id}: {cases[0].message}", said=[first_failing(cases[0])],
                   judge_version="0", numpy_version="0", python_version="0")


def test_english_is_left_as_the_judge_wrote_it(prepared, results):
    verdict = _verdict(prepared, results)
    assert localize(verdict, "en") is verdict
    assert "values" in verdict.cases[0].message and "expected" in verdict.cases[0].message


def test_every_case_message_is_rendered_in_french_and_russian_with_no_english_sentence(prepared, results):
    verdict = _verdict(prepared, results)
    for lang in ("fr", "ru"):
        shown = localize(verdict, lang)
        for before, after in zip(verdict.cases, shown.cases):
            assert after.message and after.message != before.message
            assert english_sentences(after.message) == [], (lang, after.message)
        assert shown.message.endswith(shown.cases[0].message)
        report = render_text(shown, lang=lang)
        assert english_sentences(report) == [], (lang, report)
    french = localize(verdict, "fr").cases[0].message
    assert "valeurs sur" in french and "," in f"{0.5}".replace(".", ",")
    facts = verdict.cases[0].facts
    assert facts is not None and facts.max_abs_error is not None
    assert f"{facts.max_abs_error:.3g}".replace(".", ",") in french  # a decimal comma in prose ...
    assert str(tuple(facts.worst_index or ())) in french             # ... not in an index, which is code


def test_the_learners_own_words_stay_as_python_wrote_them(prepared, results):
    verdict = _verdict(prepared, results)
    for lang in ("fr", "ru"):
        assert localize(verdict, lang).cases[1].message.endswith(": ValueError: the learner's own words")


def test_a_learner_view_rendered_in_a_language_withholds_what_it_withheld(prepared, results):
    verdict = _verdict(prepared, results)
    hidden_ids = {c.id for c in verdict.cases if c.visibility == "hidden"}
    view = learner_view(verdict, FeedbackPolicy(hidden="status"))
    for lang in ("fr", "ru"):
        shown = localize(view, lang)
        text = shown.model_dump_json(exclude={"said"}) + render_text(shown, lang=lang)
        for case in shown.cases:
            text += case.message
        assert not any(i in text for i in hidden_ids), lang
        hidden = [c for c in shown.cases if c.visibility == "hidden"]
        assert hidden and all(c.id.startswith("cas caché" if lang == "fr" else "скрытый тест") for c in hidden)
        assert all("(2, 3)" not in c.message for c in hidden)  # a hidden case's wrong shape is not said


def test_a_stored_verdict_read_back_from_json_renders_the_same(prepared, results):
    verdict = _verdict(prepared, results)
    again = Verdict.model_validate_json(verdict.model_dump_json())
    for lang in ("fr", "ru"):
        assert render_text(localize(again, lang), lang=lang) == render_text(localize(verdict, lang), lang=lang)


def test_a_number_the_stored_json_wrote_as_null_renders_without_error():
    """A stored verdict is read back from JSON, where NaN and infinities are null: a sentence with a number
    field (expected 1, got NaN) still renders in every language, as "nan", never a TypeError on the page."""
    from judge.feedback import MessageRef
    from judge.i18n import messages as m
    from judge.i18n.catalog import render

    stored = MessageRef.model_validate_json(m.EXPECTED_GOT(expected=1.0, got=float("nan")).model_dump_json())
    assert stored.params["got"] is None, "the round trip this test is about: JSON has no NaN"
    for lang in ("en", "fr", "ru"):
        text = render(stored, lang)
        assert "nan" in text and ("1" in text), (lang, text)
