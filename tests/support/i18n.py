"""Finding English left in a text meant to be French or Russian (half-translated output).

A simple detector: English function words, as whole words, outside what is code, identifiers, numbers or the
learner's and Python's own words (a traceback, an exception's text, a call).  Lines that are code are skipped
whole: indented traceback lines, ``File "..."``, lines with ``Error:`` or ``np.``."""

from __future__ import annotations

import re
from html.parser import HTMLParser

FUNCTION_WORDS = ("the", "is", "are", "your", "of", "was", "were", "than", "and", "to", "it", "by", "with", "from",
                  "not", "on", "every", "which", "has", "have", "cases", "values", "expected", "got")
_WORD = re.compile(r"(?<![\w.'`=_-])(" + "|".join(FUNCTION_WORDS) + r")(?![\w.'`=_(-])", re.IGNORECASE)
_CODE = re.compile(r"`[^`]*`|'[^']*'|\"[^\"]*\"|\b\w+\([^)]*\)|\b[\w.]+Error\b.*$|\bline \d+, in \w+.*$")


_FRAME = re.compile(r"^(?:line \d+, )?in \w+:\s*")
#: French "on" (the pronoun) before a clitic: "on la garde", "on ne peut"; English never writes "on" so
_FRENCH_ON = re.compile(r"\bon (?=(?:la|le|les|lui|leur|y|en|ne|se)\b|[ln]'|s')", re.IGNORECASE)


def english_sentences(text: str, theirs: str = "", quoted: tuple[str, ...] = ()) -> list[str]:
    """The lines of ``text`` that still hold an English function word outside code.  ``theirs``: the learner's
    source; a line of it quoted by a traceback (wrapped onto a line of its own, or after its frame's name) is
    their words, not the judge's.  ``quoted``: Python's own words a sentence of the judge's quotes (a syntax
    error's text, json's complaint), taken out of a line where they appear whole."""
    found = []
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith(("File ", "Traceback", "^", "~")) or "np." in stripped:
            continue
        if theirs and _FRAME.sub("", stripped) in theirs:
            continue
        judges = stripped
        for words in quoted:
            judges = judges.replace(words, " ")
        prose = _FRENCH_ON.sub(" ", _CODE.sub(" ", judges))
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


class _Text(HTMLParser):
    """An HTML fragment's text as a reader sees it, each element's text on a line of its own (an image's ``alt``
    and an element's ``title`` and ``aria-label`` too); code stays in, the detector skips it itself."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self.parts.append("\n")
        self.parts += [value for name, value in attrs if name in ("alt", "title", "aria-label") and value]

    def handle_endtag(self, tag: str) -> None:
        self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        self.parts.append(data)


def html_text(fragment: str) -> str:
    """The text of ``fragment`` (tags gone, entities read), one element per line."""
    parser = _Text()
    parser.feed(fragment)
    parser.close()
    return "".join(parser.parts)


def page_texts(view: dict, script: dict) -> list[str]:
    """What the learner page's script (judge/service/static/learner.js, ``renderVerdict``) writes for the verdict
    ``view`` (the page API's JSON), its own words taken from ``script`` (:func:`judge.service.lti.page.script_words`):
    the verdict's texts as the script shows them, and the script's words it picks for this verdict.  The
    learner's own output (stdout, stderr, a counterexample's ``got_text``) is theirs, left out."""
    words = script["words"]

    def t(key: str) -> str:
        word = words[key]
        return word if isinstance(word, str) else " ".join(word.values())

    def looked_up(prefix: str, value: str) -> str:  # the script's words(): the raw value where it has no word
        return t(f"{prefix}.{value}") if f"{prefix}.{value}" in words else value

    texts = [looked_up("status", view["status"]), t("score"), view.get("message") or ""]
    texts += [t("notebook")] if view.get("notebook") else []
    for d in view.get("diagnoses") or []:
        texts += [t("what_went_wrong"), d.get("message") or "", d.get("evidence") or ""]
    found = view.get("counterexample")
    if found:
        texts += [t("counterexample"), t("counterexample_hint"), looked_up("differs", found["differs"]),
                  found.get("message") or ""]
    for case in view.get("cases") or []:
        texts += [case["id"], looked_up("visibility", case["visibility"]), looked_up("status", case["status"])]
        window = (case.get("facts") or {}).get("window")
        if case["status"] != "accepted":
            texts.append(case.get("message") or "")
            if window and case["visibility"] == "public":
                texts += [t("first_failing"), window.get("where") or "", window.get("row_label") or t("row"),
                          window.get("col_label") or t("column")]
    texts += [p.get("title") or "" for p in view.get("pictures") or []]
    return [text for text in texts if text]
