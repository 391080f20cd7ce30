"""The learner page's HTML: the statement (Markdown, formulas as MathML rendered here), the public
examples, an editor, and the slots the page's script fills (state, verdict, earlier submissions).

No template engine and no front-end build: the page is plain HTML with one stylesheet and one small
script, both served by the judge (``judge/service/static``), so it works without any CDN and weighs a
few tens of KiB.  Formulas are converted to MathML on the server (browsers render MathML natively), so
no math library ships to the browser.
"""

from __future__ import annotations

import functools
import json
from html import escape
from typing import Any

import numpy as np

from judge.i18n import messages as m
from judge.i18n.catalog import Message, say, translations
from judge.i18n.negotiate import SUPPORTED
from judge.service.lti.tables import LearnerSession

#: each language's name in itself, for the language menu
LANGUAGE_NAMES = {"en": "English", "fr": "Français", "ru": "Русский"}
#: a count of each plural category a language has (``Intl.PluralRules``' names), to give the script every form
_PLURAL_SAMPLES = {"en": {"one": 1, "other": 2}, "fr": {"one": 1, "many": 1000000, "other": 2},
                   "ru": {"one": 1, "few": 2, "many": 5, "other": 5}}


@functools.lru_cache(maxsize=1)
def _markdown():  # noqa: ANN202
    from latex2mathml.converter import convert
    from markdown_it import MarkdownIt
    from mdit_py_plugins.dollarmath import dollarmath_plugin

    def math(latex: str, options: dict) -> str:
        try:
            return convert(latex, display="block" if options.get("display_mode") else "inline")
        except Exception:  # noqa: BLE001 - show the source rather than nothing
            return f"<code>{escape(latex)}</code>"

    # html=False: a statement's raw HTML is shown as text, never run
    return MarkdownIt("commonmark", {"html": False}).use(dollarmath_plugin, renderer=math).enable("table")


@functools.lru_cache(maxsize=16)
def statement_html(markdown: str) -> str:
    """The statement as HTML, without its leading ``# Title`` (the page's header shows the title)."""
    lines = markdown.lstrip().splitlines()
    if lines and lines[0].startswith("# "):
        markdown = "\n".join(lines[1:])
    return _markdown().render(markdown)


def _value(value: Any, lang: str = "en") -> str:
    if isinstance(value, list):
        array = np.asarray(value)
        text = np.array2string(array, precision=6, threshold=48, edgeitems=3, max_line_width=72)
        if array.ndim > 1 or array.size > 8:
            return say(m.PAGE_ARRAY_OF_SHAPE, lang, shape=str(tuple(array.shape))) + "\n" + text
        return text
    return repr(value)


def say_html(message: Message, lang: str, **html: str) -> str:
    """The message in ``lang``, escaped, with its parameters as the HTML given (already escaped by the caller):
    a translation may move a placeholder, so the markup goes where the language puts the word."""
    marks = {name: f"\x00{k}\x00" for k, name in enumerate(html)}
    text = escape(say(message, lang, **marks))
    for name, mark in marks.items():
        text = text.replace(mark, html[name])
    return text


def examples_html(examples: list[dict], lang: str = "en") -> str:
    if not examples:
        return f"<p>{escape(say(m.PAGE_NO_EXAMPLES, lang))}</p>"
    parts = []
    below = say(m.PAGE_SEE_BELOW, lang)
    for ex in examples:
        args = ", ".join(f"{k}={_value(v)}" if not isinstance(v, list) else f"{k}={below}"
                         for k, v in ex["args"].items())
        arrays = "".join(f"<p>{escape(k)} =</p><pre>{escape(_value(v, lang))}</pre>"
                         for k, v in ex["args"].items() if isinstance(v, list))
        raises = (say_html(m.PAGE_EXAMPLE_RAISES, lang, exception=f"<code>{escape(ex['raises'])}</code>")
                  if "raises" in ex else "")
        parts.append(
            f'<details><summary><code>{escape(ex["function"])}({escape(args)})</code> '
            f'<span class="case-id">{escape(ex["id"])}</span></summary>'
            + (f"<p>{escape(ex.get('description') or '')}</p>" if ex.get("description") else "")
            + arrays + (f"<p>{raises}</p></details>" if "raises" in ex
                        else f"<p>{escape(say(m.PAGE_EXAMPLE_EXPECTED, lang))}</p>"
                             f"<pre>{escape(_value(ex['expected'], lang))}</pre></details>"))
    return "\n".join(parts)


def script_words(lang: str, table: dict[str, Message] | None = None) -> dict[str, Any]:
    """What a page's script (learner.js; ``table``: another script's words, teacher.js's) says, in ``lang``: each
    text with its ``{name}`` placeholders for the script to fill, and a counted text as its form per plural
    category (the script picks one with ``Intl.PluralRules``)."""
    catalog = translations(lang)
    words: dict[str, Any] = {}
    for key, message in (m.PAGE_SCRIPT_WORDS if table is None else table).items():
        if message.plural is None:
            words[key] = catalog.pgettext(message.id, message.text)
        else:
            words[key] = {category: catalog.npgettext(message.id, message.text, message.plural, n)
                          for category, n in _PLURAL_SAMPLES[lang].items()}
    return {"lang": lang, "words": words}


def words_json(lang: str, table: dict[str, Message] | None = None) -> str:
    """The script's words as a JSON data block (never run: the page's policy allows no inline script); ``<``
    escaped so no text can close the element."""
    return json.dumps(script_words(lang, table), ensure_ascii=False).replace("<", "\\u003c")


def language_menu(lang: str) -> str:
    """Links to the page in each language (``?lang=``): a plain link, so the menu needs no script."""
    items = "".join(f'<li><a href="?lang={code}" hreflang="{code}" lang="{code}"'
                    + (' aria-current="true"' if code == lang else "") + f">{escape(LANGUAGE_NAMES[code])}</a></li>"
                    for code in SUPPORTED)
    return (f'<nav class="languages" aria-label="{escape(say(m.PAGE_LANGUAGE, lang))}" id="languages">'
            f"<ul>{items}</ul></nav>")


def _starter(detail: dict) -> str:
    lines = ["import numpy as np", ""]
    for function in detail.get("functions", []):
        params = ", ".join(function.get("params", []) or []) if isinstance(function.get("params"), list) else ""
        signature = function.get("signature") or f"{function['name']}({params})"
        lines += [f"def {signature}:", "    ...", "", ""]
    return "\n".join(lines).rstrip() + "\n"


def page_head(session: LearnerSession, title: str, script: str, lang: str = "en") -> str:
    """The document's start, up to ``</head>``, shared by the learner's and the teacher's page: the session's
    CSRF token for the page's API calls, the one stylesheet, the page's one script."""
    return f"""<!DOCTYPE html>
<html lang="{lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="csrf-token" content="{escape(session.csrf)}">
<link rel="icon" href="data:,">
<title>{escape(title)}</title>
<link rel="stylesheet" href="/lti/static/learner.css">
<script src="/lti/static/{script}" defer></script>
</head>"""


def course_html(course: dict | None, current: str, links: bool, lang: str = "en") -> str:
    """The course's problems in order, this one marked; links where the learner signs in per problem with the
    course's access code (/learn/<id>), plain names where each problem is its own LMS assignment (LTI)."""
    if not course:
        return ""
    items = []
    for p in course["problems"]:
        name = escape((p.get("titles") or {}).get(lang) or p["title"])
        if p["id"] == current:
            items.append(f'<li aria-current="page"><strong>{name}</strong></li>')
        else:
            items.append(f'<li><a href="/learn/{escape(p["id"])}">{name}</a></li>' if links else f"<li>{name}</li>")
    return (f'<nav aria-labelledby="course-h" class="course"><h2 id="course-h">{escape(course["title"])}</h2>'
            f'<ol>{"".join(items)}</ol></nav>')


def render_page(detail: dict, session: LearnerSession, course: dict | None = None, lang: str = "en",
                words: dict | None = None) -> str:
    """The learner page in ``lang``; ``words``: the bundle's words in it (:func:`judge.service.problems.in_language`:
    the statement and its language, English said once when the bundle has none in ``lang``; the title; the
    public cases' descriptions)."""
    words = words or {}
    title = escape(words.get("title") or detail["title"])
    text, statement_lang = words.get("statement", detail["statement"]), words.get("statement_lang", "en")
    descriptions = words.get("descriptions") or {}
    detail = {**detail, "examples": [{**ex, "description": descriptions.get(ex["id"], ex.get("description"))}
                                     for ex in detail["examples"]]}
    english = (f'<p class="hint statement-lang">{escape(say(m.PAGE_STATEMENT_ENGLISH, lang))}</p>'
               if statement_lang != lang else "")
    t = {key: escape(say(message, lang)) for key, message in (
        ("skip", m.PAGE_SKIP), ("statement", m.PAGE_STATEMENT), ("examples", m.PAGE_EXAMPLES),
        ("solution", m.PAGE_YOUR_SOLUTION), ("hint", m.PAGE_EDITOR_HINT), ("source", m.PAGE_PYTHON_SOURCE),
        ("submit", m.PAGE_SUBMIT), ("notebook", m.PAGE_NOTEBOOK), ("needs_js", m.PAGE_NEEDS_JS),
        ("verdict", m.PAGE_VERDICT), ("earlier", m.PAGE_EARLIER), ("none_yet", m.PAGE_NONE_YET))}
    who = f'<p class="who">{say_html(m.PAGE_SIGNED_IN, lang, name=escape(session.name))}</p>' if session.name else ""
    return (
        page_head(session, words.get("title") or detail["title"], "learner.js", lang)
        + f"""
<body>
<a class="skip" href="#editor">{t["skip"]}</a>
<header><h1>{title}</h1>{who}{language_menu(lang)}</header>
<script type="application/json" id="judge-words">{words_json(lang)}</script>
{course_html(course, detail["id"], links=session.issuer is None, lang=lang)}
<main id="app" data-problem="{escape(detail["id"])}" data-draft-key="judge-draft:{escape(detail["id"])}:{escape(session.learner[:16])}">
<section aria-labelledby="statement-h" class="statement"{'' if statement_lang == lang else ' lang="en"'}>
<h2 id="statement-h" class="visually-hidden">{t["statement"]}</h2>
{english}{statement_html(text)}
</section>
<section aria-labelledby="examples-h">
<h2 id="examples-h">{t["examples"]}</h2>
{examples_html(detail["examples"], lang)}
</section>
<section aria-labelledby="editor-h" class="work">
<h2 id="editor-h">{t["solution"]}</h2>
<p class="hint" id="editor-hint">{t["hint"]}</p>
<div class="editor">
<pre class="highlight" aria-hidden="true"><code id="highlight"></code></pre>
<textarea id="editor" spellcheck="false" autocapitalize="off" autocomplete="off" wrap="off"
 aria-describedby="editor-hint" aria-label="{t["source"]}">{escape(_starter(detail))}</textarea>
</div>
<p><button id="submit" type="button">{t["submit"]}</button> <span id="state" role="status" aria-live="polite"></span></p>
<p class="notebook-upload"><label for="notebook-file">{t["notebook"]}</label> <input id="notebook-file" type="file" accept=".ipynb,application/x-ipynb+json"></p>
<noscript><p class="error">{t["needs_js"]}</p></noscript>
<p id="problem-banner" class="error" role="alert" hidden></p>
</section>
<section aria-labelledby="verdict-h" id="verdict-section" hidden>
<h2 id="verdict-h" tabindex="-1">{t["verdict"]}</h2>
<div id="verdict"></div>
</section>
<section aria-labelledby="history-h">
<h2 id="history-h">{t["earlier"]}</h2>
<ol id="history" reversed></ol>
<p id="history-empty">{t["none_yet"]}</p>
</section>
</main>
</body>
</html>
"""  # noqa: E501 - a file written verbatim: its lines are its own
    )


def simple_page(title: str, body_html: str, lang: str = "en") -> str:
    """A plain page (errors, the access-code form): no script, readable anywhere."""
    return f"""<!DOCTYPE html>
<html lang="{lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(title)}</title><link rel="icon" href="data:,"><link rel="stylesheet" href="/lti/static/learner.css"></head>
<body><main class="plain"><h1>{escape(title)}</h1>{body_html}</main></body></html>
"""  # noqa: E501 - a file written verbatim: its lines are its own
