"""The judge's own words in the learner's language: English (the source), French and Russian.

Why a package: a sentence is recorded where it is made as a message id and its parameters
(:class:`judge.feedback.MessageRef`), beside the English text every consumer reads; a door renders it in the
learner's language at the last moment (:mod:`judge.i18n.localize`), so a stored verdict can be shown in any
language later.  Modules, one concept each:

- :mod:`judge.i18n.catalog`: the message registry and gettext catalogs (``locale/<lang>/LC_MESSAGES/judge.mo``);
- :mod:`judge.i18n.messages`: every message id the judge says, with its English text;
- :mod:`judge.i18n.numbers`: numbers in prose the way the language writes them (a decimal comma in French);
- :mod:`judge.i18n.negotiate`: which of the supported languages a request, a locale or a launch asks for;
- :mod:`judge.i18n.localize`: a verdict's learner-facing texts rendered in a language (a door's last step).

Catalogs are managed with Babel (``scripts/i18n``: extract, update, compile); the course's terms are fixed in
``glossary.yaml`` beside them.
"""

from judge.i18n.negotiate import DEFAULT, SUPPORTED, negotiate

__all__ = ["DEFAULT", "SUPPORTED", "negotiate"]
