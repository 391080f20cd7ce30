"""The message registry and the compiled gettext catalogs that translate it.

A message is an id (gettext's context, ``msgctxt``) and its English text (``msgid``): the id keeps a sentence
stable for the code and the tests, the English text is what a translator reads, and a change to it marks the
translation fuzzy (``pybabel update``).  Placeholders are ``str.format`` names (``{count}``), which Babel checks
as python-brace-format.  Catalogs are the standard library's ``gettext`` reading the ``.mo`` files shipped in
the package; Babel is needed only to extract, update and compile them (``scripts/i18n``)."""

from __future__ import annotations

import gettext
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from judge.feedback import MessageRef
from judge.i18n.negotiate import DEFAULT, SUPPORTED
from judge.i18n.numbers import ProseFormatter

LOCALE_DIR = Path(__file__).resolve().parent / "locale"
DOMAIN = "judge"
VERBATIM = "verbatim"  # a ref whose params["text"] is shown as it is (the learner's own words, Python's)
LIST = "list"  # a ref whose params["items"] (refs) are shown one after another, joined by ", "
WORD = "word"  # a ref to a bundle's word (params: "key", its English "text", "n" for its plural form)
FACT = "fact"  # a ref to a bundle's fact (params: "key", its English "text", "values": its parameters)


@dataclass(frozen=True)
class Message:
    """One sentence the judge can say: ``plural`` and ``count`` for a sentence whose words follow a number."""

    id: str
    text: str
    plural: str | None = None
    count: str | None = None

    def __call__(self, **params: Any) -> MessageRef:
        return MessageRef(id=self.id, params=params)

    def en(self, **params: Any) -> str:
        """The English text with ``params`` (what the verdict's plain ``message`` fields hold)."""
        return render(self(**params), DEFAULT)


MESSAGES: dict[str, Message] = {}


def msg(id: str, text: str) -> Message:
    """Register a message (Babel extracts it: keyword ``msg:1c,2``)."""
    assert id not in MESSAGES, f"message id {id} defined twice"
    MESSAGES[id] = message = Message(id, text)
    return message


def msgp(id: str, singular: str, plural: str, count: str) -> Message:
    """Register a message with plural forms chosen by the parameter ``count`` (keyword ``msgp:1c,2,3``)."""
    assert id not in MESSAGES, f"message id {id} defined twice"
    MESSAGES[id] = message = Message(id, singular, plural, count)
    return message


def verbatim(text: str) -> MessageRef:
    """Words that are not the judge's (an exception's text, a bundle's name): shown as they are."""
    return MessageRef(id=VERBATIM, params={"text": text})


def fact(key: str, text: str, values: dict[str, Any]) -> MessageRef:
    """A fact the bundle's own code reports (judge.diagnosis.recover), worded by the bundle: stored by its id,
    English text and parameters, so :func:`judge.i18n.localize.localize` can say it again from the bundle's
    translation of that id in the learner's language."""
    return MessageRef(id=FACT, params={"key": key, "text": text, "values": values})


def word(key: str, n: int | str | None = None, text: str | None = None) -> MessageRef:
    """A word the bundle gives the judge's sentences (an axis name, a pair name): stored by its key and English
    form, so the verdict stays language-free; :func:`judge.i18n.localize.localize` asks the bundle for it in the
    learner's language (``n``: the count its plural form follows, or ``"label"`` for a plural naming a kind, not
    counting one; ``text``: the English form, when not ``key``)."""
    return MessageRef(id=WORD, params={"key": key, "n": n, "text": key if text is None else text})


@cache
def translations(lang: str) -> gettext.NullTranslations:
    """The compiled catalog of ``lang`` (English: none, the source texts are the English ones)."""
    if lang == DEFAULT or lang not in SUPPORTED:
        return gettext.NullTranslations()
    return gettext.translation(DOMAIN, localedir=str(LOCALE_DIR), languages=[lang])


def _ref(value: Any) -> MessageRef | None:
    if isinstance(value, MessageRef):
        return value
    if isinstance(value, dict) and set(value) == {"id", "params"} and isinstance(value["id"], str):
        return MessageRef.model_validate(value)  # a ref read back from a stored verdict's JSON
    return None


def _param(value: Any, lang: str) -> Any:
    ref = _ref(value)
    if ref is not None:
        return render(ref, lang)
    if isinstance(value, list) and value and all(_ref(v) is not None for v in value):
        return render_all(value, lang)
    return value


def template(message: Message, lang: str, params: dict[str, Any]) -> str:
    """The message's text in ``lang``, the plural form chosen by its count."""
    catalog = translations(lang)
    if message.plural is not None and message.count is not None:
        return catalog.npgettext(message.id, message.text, message.plural, int(params.get(message.count, 0)))
    return catalog.pgettext(message.id, message.text)


def render(ref: MessageRef | dict, lang: str) -> str:
    """One ref as text in ``lang``; an id this judge does not know (a newer judge's verdict) is shown as its
    English text if the ref carries one, else as its id."""
    ref = _ref(ref) or MessageRef(id=VERBATIM, params={"text": str(ref)})
    if ref.id in (VERBATIM, WORD, FACT):
        return str(ref.params.get("text", ""))
    if ref.id == LIST:
        return render_all(list(ref.params.get("items", [])), lang, str(ref.params.get("sep", ", ")))
    message = MESSAGES.get(ref.id)
    if message is None:
        return str(ref.params.get("text", ref.id))
    params = {name: _param(value, lang) for name, value in ref.params.items()}
    return ProseFormatter(lang).format(template(message, lang, params), **params)


def render_all(refs: list, lang: str, sep: str = "; ") -> str:
    """Several refs, in order, as the one text the judge joins them into."""
    if sep == "; " and lang == "fr":
        sep = " ; "  # French sets a (thin) space before a semicolon
    return sep.join(text for text in (render(r, lang) for r in refs) if text)


def listed(items: list[MessageRef]) -> MessageRef:
    """Several refs said as one, joined by ", " (places: "batch index 0, column j=3")."""
    return MessageRef(id=LIST, params={"items": items})


def spaced(items: list[MessageRef]) -> MessageRef:
    """Several refs said as one, joined by a space (an axis's name and its index: "column j=3")."""
    return MessageRef(id=LIST, params={"items": items, "sep": " "})


def say(message: Message, lang: str, **params: Any) -> str:
    """A fixed text of a door (a heading, a label) in ``lang``."""
    return render(message(**params), lang)


def map_texts(refs: list[MessageRef], fn: Callable[[str], str]) -> list[MessageRef]:
    """``refs`` with ``fn`` applied to every text parameter, nested refs included: a rewrite of the English text
    (a notebook's "line N" named "cell C, line M") made to the parameters it came from, so every language says
    it."""
    def value(v: Any) -> Any:
        ref = _ref(v)
        if ref is not None:
            return map_texts([ref], fn)[0]
        if isinstance(v, list):
            return [value(x) for x in v]
        return fn(v) if isinstance(v, str) else v

    return [MessageRef(id=r.id, params={k: value(v) for k, v in r.params.items()}) for r in refs]
