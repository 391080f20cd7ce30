"""The learner page's view of a stored verdict: :mod:`judge.service.learner_view`, where it lives since the
platform API's learner view (a core route, which may not import the learner side) uses it too."""

from __future__ import annotations

from fastapi import Header, Query

from judge.i18n import negotiate
from judge.service.learner_view import activity_policy, bundle_policy, learner_verdict

__all__ = ["activity_policy", "bundle_policy", "learner_language", "learner_verdict"]


def learner_language(lang: str | None = Query(None, max_length=40, description="the language of the verdict's "
                                              "texts: en, fr or ru (the page's language menu); default: "
                                              "Accept-Language"),
                     accept_language: str | None = Header(None)) -> str:
    """The language a learner page's request asks for: the menu's choice, else the browser's Accept-Language,
    else English.  Only ever one of the judge's languages: the value chooses a catalog, never a path or a text."""
    return negotiate(lang, accept_language)
