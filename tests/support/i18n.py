"""Finding English left in a text meant to be French or Russian (half-translated output).

A simple detector: English function words, as whole words, outside what is code, identifiers, numbers or the
learner's and Python's own words (a traceback, an exception's text, a call).  Lines that are code are skipped
whole: indented traceback lines, ``File "..."``, lines with ``Error:`` or ``np.``."""

from __future__ import annotations

import re

FUNCTION_WORDS = ("the", "is", "are", "your", "of", "was", "were", "than", "and", "to", "it", "by", "with", "from",
                  "not", "on", "every", "which", "has", "have", "cases", "values", "expected", "got")
_WORD = re.compile(r"(?<![\w.'`=_-])(" + "|".join(FUNCTION_WORDS) + r")(?![\w.'`=_(-])", re.IGNORECASE)
_CODE = re.compile(r"`[^`]*`|'[^']*'|\"[^\"]*\"|\b\w+\([^)]*\)|\b[\w.]+Error\b.*$|\bline \d+, in \w+.*$")


_FRAME = re.compile(r"^(?:line \d+, )?in \w+:\s*")


def english_sentences(text: str, theirs: str = "") -> list[str]:
    """The lines of ``text`` that still hold an English function word outside code.  ``theirs``: the learner's
    source; a line of it quoted by a traceback (wrapped onto a line of its own, or after its frame's name) is
    their words, not the judge's."""
    found = []
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith(("File ", "Traceback", "^", "~")) or "np." in stripped:
            continue
        if theirs and _FRAME.sub("", stripped) in theirs:
            continue
        prose = _CODE.sub(" ", stripped)
        if _WORD.search(prose):
            found.append(stripped)
    return found


_HIDDEN_BLOCK = re.compile(r"<(script|style)\b[^>]*>.*?</\1>", re.DOTALL | re.IGNORECASE)
_TAG = re.compile(r"<[^>]+>")


def visible_text(html: str) -> str:
    """What a person reads of a page served without its script having run: the text between the tags (elements
    hidden until the script shows them included), entities decoded; scripts and styles left out."""
    import html as entities

    return entities.unescape(_TAG.sub("\n", _HIDDEN_BLOCK.sub("", html)))


def script_texts(html: str) -> list[str]:
    """Every text a page gives its script to write (its ``judge-words`` JSON block), each plural form apart."""
    import json

    block = re.search(r'<script type="application/json" id="judge-words">(.*?)</script>', html, re.DOTALL)
    assert block is not None, "the page has no words block for its script"
    words = json.loads(block.group(1))["words"]
    return [form for text in words.values() for form in (text.values() if isinstance(text, dict) else [text])]


def page_lang(html: str) -> str:
    """The language a page says it is in (``<html lang="...">``)."""
    found = re.search(r'<html lang="(\w+)">', html)
    assert found is not None, "the page names no language"
    return found.group(1)
