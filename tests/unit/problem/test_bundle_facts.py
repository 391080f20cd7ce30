"""Facts a bundle's own code reports (mistakes.py's ``recover``), worded by id in the bundle and its translations.

mistakes.yaml gives each fact id its English text (``family.facts``), translations/<lang>.yaml the same under
``family.facts``; the loader names, at its file and line, an id the bundle does not have, an empty text, and a
translation whose parameters differ from the English one's.  A plain string fact still shows as it is."""

from __future__ import annotations

from pathlib import Path

import pytest

from judge.problem.loader import load_problem
from judge.problem.translations import missing, summary
from tests.support.problems import edit_once, line_of, load_error, problems_copy


@pytest.fixture()
def facts_bundle(tmp_path) -> Path:
    """A private copy of sinusoidal-pe, whose facts a test may change."""
    return problems_copy(tmp_path / "problems", "sinusoidal-pe") / "sinusoidal-pe"


def test_an_unknown_fact_id_is_named_at_its_line_with_the_known_ids(facts_bundle):
    fr = facts_bundle / "translations" / "fr.yaml"
    edit_once(fr, "    frequencies: ", "    frequency: ")
    error = load_error(facts_bundle)
    assert error.startswith(f"{fr}:{line_of(fr, 'frequency:')}: family.facts: frequency: "), error
    assert "frequencies, exponent" in error and "did you mean 'frequencies'?" in error, error


def test_an_empty_fact_text_is_named_at_its_line(facts_bundle):
    ru = facts_bundle / "translations" / "ru.yaml"
    edit_once(ru, "    exponent: \"w_1", "    exponent: \"\"\n    unused: \"w_1")
    error = load_error(facts_bundle)
    line = line_of(ru, 'exponent: ""')
    assert error.startswith(f"{ru}:{line}: family.facts: exponent: empty text"), error


@pytest.mark.parametrize("old,new,said", [
    ("{expected:.4g}) (2i", "{attendu:.4g}) (2i", "names {attendu}, {base}, {exponent}"),
    ("= {values}", "= {0}", "is not a format string"),
    ("= {values}", "= valeurs", "names no parameter")])
def test_a_translation_says_the_fact_from_the_english_ones_parameters(facts_bundle, old, new, said):
    fr = facts_bundle / "translations" / "fr.yaml"
    edit_once(fr, old, new)
    error = load_error(facts_bundle)
    key = "exponent" if "expected" in old else "frequencies"
    line = line_of(fr, "    exponent: \"w_1" if key == "exponent" else "    frequencies:")
    assert error.startswith(f"{fr}:{line}: family.facts: {key}: "), error
    assert said in error and "the English one names" in error, error


@pytest.mark.parametrize("text,why", [("w = {0}", "not a format string"), ("w = {values", "not a format string"),
                                      ("w = {x.real}", "not a format string"), ("  ", "empty text")])
def test_the_english_fact_is_checked_in_mistakes_yaml(facts_bundle, text, why):
    yaml = facts_bundle / "mistakes.yaml"
    edit_once(yaml, "    frequencies: \"row 1 gives the frequencies w_i = atan2(sin, cos) = {values}\"",
          f"    frequencies: \"{text}\"")
    error = load_error(facts_bundle)
    assert error.startswith(f"{yaml}:{line_of(yaml, '    frequencies:')}: family: facts: frequencies: {why}"), error


def test_verify_counts_an_untranslated_fact(facts_bundle):
    ru = facts_bundle / "translations" / "ru.yaml"
    edit_once(ru, "    exponent: \"w_1", "    # exponent: \"w_1")
    bundle = load_problem(facts_bundle)
    assert missing(bundle, "ru") == ["fact exponent"] and missing(bundle, "fr") == []
    assert summary(bundle, "ru") == "1 fact untranslated (exponent)"
    assert summary(bundle, "fr") == "complete"


def test_a_fact_is_a_plain_string_or_a_worded_id_and_a_slip_costs_only_that_fact(facts_bundle):
    """Plain strings (a bundle that words its facts only in English) stay as they are; an id the bundle does not
    word, or parameters that do not fill its text, drop that fact instead of failing the verdict."""
    from judge.diagnosis.recover import _fact
    from judge.i18n.catalog import render

    family = load_problem(facts_bundle).bank.spec.family
    assert render(_fact(family, "row 1 says w = 1"), "fr") == "row 1 says w = 1"
    worded = _fact(family, {"id": "exponent", "params": {"base": 100.0, "exponent": -0.25, "expected": -0.5}})
    assert render(worded, "en") == "w_1 = 100^(-0.25); the exercise's w_1 = 100^(-0.5) (2i/d_model)"
    for slip in ({"id": "nope"}, {"id": "exponent", "params": {"base": 1.0}}, {"id": "exponent", "params": [1]},
                 {"id": "frequencies", "params": {"values": "1"}, "extra": 1}, 42):
        assert _fact(family, slip) is None, slip
