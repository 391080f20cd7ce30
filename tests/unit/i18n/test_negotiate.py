"""Which language a learner gets, from each shape a door sees it in: one answer for the same wish."""

from __future__ import annotations

import pytest

from judge.i18n import negotiate
from judge.i18n.negotiate import from_environment


@pytest.mark.parametrize(("asked", "lang"), [
    ("fr", "fr"), ("fr-FR", "fr"), ("fr_CA", "fr"), ("ru_RU.UTF-8", "ru"), ("RU", "ru"), ("en-GB", "en"),
    ("de-DE", "en"), ("", "en"), ("C", "en"), ("POSIX", "en"), ("x" * 500, "en"), ("fr-FR@euro", "fr"),
    ("de-CH, fr;q=0.9, en;q=0.8", "fr"),
    ("en;q=0.5, ru;q=0.9", "ru"),
    ("ru;q=0, fr;q=0.1", "fr"),
    ("*", "en"),
    ("fr;q=abc, ru", "ru"),
])
def test_a_tag_a_locale_or_an_accept_language_header_gives_a_supported_language(asked, lang):
    assert negotiate(asked) == lang


def test_the_first_candidate_that_names_a_supported_language_decides():
    assert negotiate(None, "de-DE", "ru-RU", "fr") == "ru"
    assert negotiate("fr", "ru") == "fr"
    assert negotiate(None, None) == "en"


@pytest.mark.parametrize(("environ", "lang"), [
    ({"LANG": "fr_FR.UTF-8"}, "fr"),
    ({"LANG": "fr_FR.UTF-8", "LC_MESSAGES": "ru_RU.UTF-8"}, "ru"),
    ({"LANG": "ru_RU.UTF-8", "LC_ALL": "C.UTF-8"}, None),
    ({"LANGUAGE": "de:fr", "LANG": "ru_RU.UTF-8"}, "fr"),
    ({}, None),
])
def test_the_environment_is_read_as_gettext_reads_it(environ, lang):
    assert from_environment(environ) == lang
