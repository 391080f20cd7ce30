"""A bundle's French and Russian texts: read by id, checked when the bundle loads, English where they are missing.

An author's slip in a translation file (an id that is not the bundle's, a hidden case's description, a language
the judge does not speak, a key with no text) is named at its file and line with the ids it could have meant,
never shown to a learner as English-in-disguise or as a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from judge.authoring.verify import translation_notes
from judge.formats.show import render_problem
from judge.grading.prepare import bundle_mtimes
from judge.problem.loader import load_problem
from judge.problem.translations import bundle_text, bundle_word, missing, statement, summary
from tests.support.problems import edit_once, line_of, load_error, problems_copy

MESSAGE = "    message: \"Sine and cosine are swapped"


@pytest.fixture()
def translated_copy(tmp_path) -> Path:
    """A private copy of sinusoidal-pe, whose translations a test may change."""
    return problems_copy(tmp_path / "problems", "sinusoidal-pe") / "sinusoidal-pe"


def test_the_bundle_speaks_french_and_russian(translated_copy):
    bundle = load_problem(translated_copy)
    assert bundle_text(bundle, "fr", "title", "", bundle.spec.title) == "Encodage positionnel sinusoïdal"
    assert bundle_text(bundle, "ru-RU", "mistake", "sin_cos_swapped", "?").startswith("Синус и косинус перепутаны")
    assert bundle_text(bundle, "fr_FR.UTF-8", "property", "unit_circle", "?").startswith("chaque paire")
    assert bundle_text(bundle, "fr", "case", "ex-table-3x4", "?") == "exemple 1 de l'énoncé"
    assert bundle_text(bundle, "fr", "option", "order.cos_first", "?").startswith("met cos")
    text, used = statement(bundle, "fr-FR")
    assert used == "fr" and text.startswith("# Encodage positionnel sinusoïdal")
    assert statement(bundle, "ru")[0].startswith("# Синусоидальное позиционное кодирование")


def test_english_stands_in_for_whatever_is_missing(translated_copy):
    fr = translated_copy / "translations" / "fr.yaml"
    edit_once(fr, "  sin_cos_swapped: ", "  # sin_cos_swapped: ")
    (translated_copy / "statement.ru.md").unlink()
    bundle = load_problem(translated_copy)
    english = bundle.bank.message("sin_cos_swapped", "")
    assert bundle_text(bundle, "fr", "mistake", "sin_cos_swapped", english) == english
    assert bundle_text(bundle, "de", "mistake", "frequencies_grow", "EN") == "EN"   # a language no bundle has
    assert bundle_text(bundle, "fr", "mistake", "no_such_id", "EN") == "EN"
    assert statement(bundle, "ru") == (bundle.statement, "en")
    assert statement(bundle, "de") == (bundle.statement, "en")
    assert missing(bundle, "fr") == ["mistake sin_cos_swapped"]
    assert missing(bundle, "ru") == ["statement"]
    assert summary(bundle, "fr") == "1 mistake without a message (sin_cos_swapped)"
    notes = {lang: line for lang, _, line in translation_notes(bundle)}
    assert "[translations] fr: 1 mistake without a message (sin_cos_swapped)" in notes["fr"]
    assert "[translations] ru: no statement" in notes["ru"]


def test_missing_lists_everything_a_learner_would_read_in_english(translated_copy):
    import shutil

    shutil.rmtree(translated_copy / "translations")
    bundle = load_problem(translated_copy)
    lacks = missing(bundle, "fr")
    assert "title" in lacks and "mistake sin_cos_swapped" in lacks and "property unit_circle" in lacks
    assert "case ex-table-3x4" in lacks and "pattern position" in lacks and "option order.cos_first" in lacks
    assert not any(item.startswith("case ") and "ex-" not in item for item in lacks)  # hidden cases: never shown
    assert summary(bundle, "fr").startswith("no title; 16 mistakes without a message (sin_cos_swapped, ")


def test_an_unknown_mistake_id_is_named_at_its_line_with_the_known_ids(translated_copy):
    fr = translated_copy / "translations" / "fr.yaml"
    edit_once(fr, "  sin_cos_swapped: ", "  sin_cos_swaped: ")
    error = load_error(translated_copy)
    assert error.startswith(f"{fr}:{line_of(fr, 'sin_cos_swaped:')}: mistakes: sin_cos_swaped: "), error
    assert "sin_cos_swapped, frequencies_grow" in error and "did you mean 'sin_cos_swapped'?" in error, error


def test_a_hidden_case_has_no_description_to_translate(translated_copy):
    ru = translated_copy / "translations" / "ru.yaml"
    edit_once(ru, "cases:\n", "cases:\n  table-odd-33: \"нечётное d_model\"\n")
    error = load_error(translated_copy)
    assert error.startswith(f"{ru}:{line_of(ru, 'table-odd-33:')}: cases: table-odd-33: a hidden case"), error
    assert "ex-table-3x4" in error, error


@pytest.mark.parametrize("name", ["translations/de.yaml", "statement.de.md"])
def test_a_language_the_judge_does_not_speak_is_refused(translated_copy, name):
    path = translated_copy / name
    path.write_text("schema_version: 1\n" if name.endswith(".yaml") else "# Sinusförmige Positionskodierung\n")
    error = load_error(translated_copy)
    assert error.startswith(f"{path}: unknown language 'de'"), error
    assert "fr, ru" in error, error


def test_an_empty_text_is_named_at_its_line(translated_copy):
    fr = translated_copy / "translations" / "fr.yaml"
    edit_once(fr, "  unit_circle: \"chaque", "  unit_circle: \"\"\n  x_unused: \"chaque")
    error = load_error(translated_copy)
    assert error.startswith(f"{fr}:{line_of(fr, 'unit_circle:')}: properties: unit_circle: empty text"), error


def test_an_empty_statement_or_a_misspelt_section_is_refused(translated_copy):
    (translated_copy / "statement.fr.md").write_text("\n  \n")
    assert "an empty statement" in load_error(translated_copy)
    (translated_copy / "statement.fr.md").unlink()
    ru = translated_copy / "translations" / "ru.yaml"
    edit_once(ru, "\nmistakes:", "\nmistake:")
    error = load_error(translated_copy)
    assert error.startswith(f"{ru}:{line_of(ru, 'mistake:')}: mistake: unknown key 'mistake' (did you mean "
                            "'mistakes'?)"), error


def test_plural_forms_follow_the_language(translated_copy):
    bundle = load_problem(translated_copy)
    assert [bundle_word(bundle, "ru", "position", n) for n in (1, 3, 5, 11, 21, 22)] == \
        ["позиция", "позиции", "позиций", "позиций", "позиция", "позиции"]
    assert [bundle_word(bundle, "fr", "column", n) for n in (0, 1, 2)] == ["colonne", "colonne", "colonnes"]
    assert bundle_word(bundle, "fr", "sin", 4) == "sin" and bundle_word(bundle, "de", "sin", 1) is None
    ru = translated_copy / "translations" / "ru.yaml"
    edit_once(ru, "[позиция, позиции, позиций]", "[позиция, позиции]")
    error = load_error(translated_copy)
    assert error.startswith(f"{ru}:{line_of(ru, '  position:')}: patterns: position: 2 forms; ru has 3"), error


def test_a_changed_translation_reloads_the_bundle(translated_copy):
    """A server keeps a prepared bundle while its files' times are unchanged: a translation counts."""
    import os

    before = bundle_mtimes(translated_copy)
    fr = translated_copy / "translations" / "fr.yaml"
    os.utime(fr, ns=(fr.stat().st_atime_ns, fr.stat().st_mtime_ns + 10**9))
    assert bundle_mtimes(translated_copy) != before
    edit_once(fr, "title: Encodage positionnel sinusoïdal", "title: Encodage sinusoïdal")
    assert bundle_text(load_problem(translated_copy), "fr", "title", "", "") == "Encodage sinusoïdal"


def test_judge_show_gives_the_statement_in_the_language_asked(translated_copy):
    assert render_problem(str(translated_copy), "fr").startswith("# Encodage positionnel sinusoïdal")
    german = render_problem(str(translated_copy), "de")
    assert german.startswith("(This problem has no statement in de: here it is in English.)\n\n# Sinusoidal")


def test_a_notebook_handout_speaks_the_languages_and_names_no_hidden_case(translated_copy, tmp_path):
    """`judge package notebook` carries the translations, cut to its public cases and its bank's mistakes (a
    hand-out has no properties or family): check() in French reads French, and no file names a hidden case."""
    from judge.platforms.notebook import package

    bundle = load_problem(translated_copy)
    _, target = package(bundle, tmp_path / "handout")
    handout = load_problem(target)
    assert missing(handout, "fr") == [] and missing(handout, "ru") == []
    assert statement(handout, "ru")[1] == "ru"
    assert bundle_text(handout, "fr", "mistake", "sin_cos_swapped", "?").startswith("Le sinus et le cosinus")
    hidden = [c.id for c in bundle.cases.cases if c.visibility != "public"]
    texts = [p.read_text() for p in (target / "translations").iterdir()]
    assert hidden and not [h for h in hidden for t in texts if f"{h}:" in t]
