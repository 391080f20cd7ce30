"""The learner page's HTML: the statement (Markdown, formulas as MathML rendered here), the public
examples, an editor, and the slots the page's script fills (state, verdict, earlier submissions).

No template engine and no front-end build: the page is plain HTML with one stylesheet and one small
script, both served by the judge (``judge/service/static``), so it works without any CDN and weighs a
few tens of KiB.  Formulas are converted to MathML on the server (browsers render MathML natively), so
no math library ships to the browser.
"""

from __future__ import annotations

import functools
from html import escape
from typing import Any

import numpy as np

from judge.service.lti.tables import LearnerSession


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


def _value(value: Any) -> str:
    if isinstance(value, list):
        array = np.asarray(value)
        text = np.array2string(array, precision=6, threshold=48, edgeitems=3, max_line_width=72)
        return f"array of shape {tuple(array.shape)}:\n{text}" if array.ndim > 1 or array.size > 8 else text
    return repr(value)


def examples_html(examples: list[dict]) -> str:
    if not examples:
        return "<p>This exercise has no public examples.</p>"
    parts = []
    for ex in examples:
        args = ", ".join(f"{k}={_value(v)}" if not isinstance(v, list) else f"{k}=<see below>"
                         for k, v in ex["args"].items())
        arrays = "".join(f"<p>{escape(k)} =</p><pre>{escape(_value(v))}</pre>"
                         for k, v in ex["args"].items() if isinstance(v, list))
        parts.append(
            f'<details><summary><code>{escape(ex["function"])}({escape(args)})</code> '
            f'<span class="case-id">{escape(ex["id"])}</span></summary>'
            + (f"<p>{escape(ex.get('description') or '')}</p>" if ex.get("description") else "")
            + arrays + (f"<p>raises <code>{escape(ex['raises'])}</code></p></details>" if "raises" in ex
                        else f"<p>expected =</p><pre>{escape(_value(ex['expected']))}</pre></details>"))
    return "\n".join(parts)


def _starter(detail: dict) -> str:
    lines = ["import numpy as np", ""]
    for function in detail.get("functions", []):
        params = ", ".join(function.get("params", []) or []) if isinstance(function.get("params"), list) else ""
        signature = function.get("signature") or f"{function['name']}({params})"
        lines += [f"def {signature}:", "    ...", "", ""]
    return "\n".join(lines).rstrip() + "\n"


def page_head(session: LearnerSession, title: str, script: str) -> str:
    """The document's start, up to ``</head>``, shared by the learner's and the teacher's page: the session's
    CSRF token for the page's API calls, the one stylesheet, the page's one script."""
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="csrf-token" content="{escape(session.csrf)}">
<link rel="icon" href="data:,">
<title>{escape(title)}</title>
<link rel="stylesheet" href="/lti/static/learner.css">
<script src="/lti/static/{script}" defer></script>
</head>"""


def course_html(course: dict | None, current: str, links: bool) -> str:
    """The course's problems in order, this one marked; links where the learner signs in per problem with the
    course's access code (/learn/<id>), plain names where each problem is its own LMS assignment (LTI)."""
    if not course:
        return ""
    items = []
    for p in course["problems"]:
        name = escape(p["title"])
        if p["id"] == current:
            items.append(f'<li aria-current="page"><strong>{name}</strong></li>')
        else:
            items.append(f'<li><a href="/learn/{escape(p["id"])}">{name}</a></li>' if links else f"<li>{name}</li>")
    return (f'<nav aria-labelledby="course-h" class="course"><h2 id="course-h">{escape(course["title"])}</h2>'
            f'<ol>{"".join(items)}</ol></nav>')


def render_page(detail: dict, session: LearnerSession, course: dict | None = None) -> str:
    title = escape(detail["title"])
    who = f"<p class=\"who\">Signed in as {escape(session.name)}</p>" if session.name else ""
    return (
        page_head(session, detail["title"], "learner.js")
        + f"""
<body>
<a class="skip" href="#editor">Skip to the editor</a>
<header><h1>{title}</h1>{who}</header>
{course_html(course, detail["id"], links=session.issuer is None)}
<main id="app" data-problem="{escape(detail["id"])}" data-draft-key="judge-draft:{escape(detail["id"])}:{escape(session.learner[:16])}">
<section aria-labelledby="statement-h" class="statement">
<h2 id="statement-h" class="visually-hidden">Statement</h2>
{statement_html(detail["statement"])}
</section>
<section aria-labelledby="examples-h">
<h2 id="examples-h">Public examples</h2>
{examples_html(detail["examples"])}
</section>
<section aria-labelledby="editor-h" class="work">
<h2 id="editor-h">Your solution</h2>
<p class="hint" id="editor-hint">Tab indents, Shift+Tab unindents. Press Esc, then Tab, to leave the editor.
Ctrl+Enter submits. Your draft is kept in this browser.</p>
<div class="editor">
<pre class="highlight" aria-hidden="true"><code id="highlight"></code></pre>
<textarea id="editor" spellcheck="false" autocapitalize="off" autocomplete="off" wrap="off"
 aria-describedby="editor-hint" aria-label="Python source">{escape(_starter(detail))}</textarea>
</div>
<p><button id="submit" type="button">Submit</button> <span id="state" role="status" aria-live="polite"></span></p>
<p class="notebook-upload"><label for="notebook-file">Or submit a notebook (.ipynb): its functions are graded,
no other cell is run</label> <input id="notebook-file" type="file" accept=".ipynb,application/x-ipynb+json"></p>
<noscript><p class="error">This page needs JavaScript to submit.</p></noscript>
<p id="problem-banner" class="error" role="alert" hidden></p>
</section>
<section aria-labelledby="verdict-h" id="verdict-section" hidden>
<h2 id="verdict-h" tabindex="-1">Verdict</h2>
<div id="verdict"></div>
</section>
<section aria-labelledby="history-h">
<h2 id="history-h">Your earlier submissions</h2>
<ol id="history" reversed></ol>
<p id="history-empty">None yet.</p>
</section>
</main>
</body>
</html>
"""  # noqa: E501 - a file written verbatim: its lines are its own
    )


def simple_page(title: str, body_html: str) -> str:
    """A plain page (errors, the access-code form): no script, readable anywhere."""
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(title)}</title><link rel="icon" href="data:,"><link rel="stylesheet" href="/lti/static/learner.css"></head>
<body><main class="plain"><h1>{escape(title)}</h1>{body_html}</main></body></html>
"""  # noqa: E501 - a file written verbatim: its lines are its own
