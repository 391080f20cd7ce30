"""Which supported language a learner asked for, from whatever the door has: one function for every door.

Doors see languages in different shapes: ``--lang fr``, ``LANG=ru_RU.UTF-8``, ``Accept-Language: fr-CH,
fr;q=0.9, en;q=0.8``, an LTI launch's ``fr-FR``.  One parser keeps them agreeing; anything unknown is English,
the source language, never an error (a learner's odd locale must not stop a verdict)."""

from __future__ import annotations

import re
from typing import Final

SUPPORTED: Final = ("en", "fr", "ru")
DEFAULT: Final = "en"

_TAG = re.compile(r"^\s*([A-Za-z]{1,8})(?:[-_][A-Za-z0-9]{1,8})*(?:\.[\w-]+)?(?:@\w+)?\s*$")


def _primary(tag: str) -> str | None:
    """``fr-FR``, ``ru_RU.UTF-8``, ``en`` -> the supported primary language, or None."""
    match = _TAG.match(tag)
    if match is None:
        return None
    lang = match.group(1).lower()
    return lang if lang in SUPPORTED else None


def _ranked(header: str) -> list[str]:
    """An Accept-Language value's tags, best first (q-values; equal q keeps the header's order; q=0 refused)."""
    ranked: list[tuple[float, int, str]] = []
    for k, item in enumerate(header.split(",")[:32]):
        tag, _, params = item.partition(";")
        q = 1.0
        for param in params.split(";"):
            name, _, value = param.partition("=")
            if name.strip().lower() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        if tag.strip() and q > 0:
            ranked.append((-q, k, tag.strip()))
    return [tag for _, _, tag in sorted(ranked)]


def negotiate(*candidates: str | None) -> str:
    """The first supported language among ``candidates``, most authoritative first (e.g. an explicit choice, then
    the launch's locale, then Accept-Language, then the environment); each may be a tag, a POSIX locale or an
    Accept-Language value.  ``C``/``POSIX`` and unknown languages give way to the next; nothing: English."""
    for candidate in candidates:
        if not candidate:
            continue
        for tag in _ranked(candidate) if "," in candidate or ";" in candidate else [candidate]:
            if tag.strip() == "*":
                return DEFAULT
            found = _primary(tag)
            if found is not None:
                return found
    return DEFAULT


def from_environment(environ: dict[str, str]) -> str | None:
    """The language a POSIX environment asks for (``LC_ALL``, then ``LC_MESSAGES``, then ``LANG``, as gettext
    reads them; ``LANGUAGE``'s first entry first), or None when it names none the judge has."""
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = environ.get(name, "")
        for tag in value.split(":") if name == "LANGUAGE" else [value]:
            found = _primary(tag) if tag else None
            if found is not None:
                return found
            if tag and name != "LANGUAGE":
                return None  # a set LC_ALL/LC_MESSAGES/LANG that is not ours decides: English
    return None


def supported(tag: object) -> str | None:
    """The judge's language a single tag names (an LTI launch's ``locale``: ``fr-FR``), or None for anything else
    (a non-string, junk, an unknown language, a 10 KB value): what a session may store, never the raw value."""
    return _primary(tag) if isinstance(tag, str) and len(tag) <= 64 else None
