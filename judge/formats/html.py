"""The verdict as an HTML fragment, for ``check()`` in Jupyter, JupyterLab, Colab and VS Code notebooks.

The same content as the text report (:mod:`judge.formats.text`): the headline, the cell and line of a
notebook, what went wrong, the counterexample, the case table, the run's cost and the learner's own output,
plus the pictures of failing public cases inline, in the learner's language: its words are the text report's
(the catalog's), so the two reports of one check say the same thing.  Everything that comes from the verdict is
escaped; no script, no external resource, so it renders the same in every front end and in a saved notebook.
"""

from __future__ import annotations

import base64
from html import escape
from pathlib import Path

from judge.formats.explain import counterexample_lines, explanation_lines, notebook_line, pattern_lines
from judge.formats.text import isolation_line
from judge.i18n import messages as m
from judge.i18n.catalog import say
from judge.sandbox import mode_named
from judge.verdict import CaseResult, Status, Verdict

_COLOURS = {Status.ACCEPTED: "#1a7f37", Status.SKIPPED: "#6e7781"}
_STYLE = ("font-family: system-ui, sans-serif; font-size: 13px; line-height: 1.45; border: 1px solid #d0d7de; "
          "border-radius: 6px; padding: 10px 14px; max-width: 60em")


def _badge(status: Status, lang: str) -> str:
    colour = _COLOURS.get(status, "#cf222e")
    return f'<strong style="color: {colour}">{escape(say(m.STATUS_WORDS[status.value], lang))}</strong>'


def _pre(lines: list[str]) -> str:
    return ('<pre style="white-space: pre-wrap; margin: 4px 0">' + escape("\n".join(lines)) + "</pre>") if lines else ""


def _heading(text: str) -> str:
    return f"<div><em>{escape(text)}</em></div>"


def _case_row(case: CaseResult, lang: str) -> str:
    hidden = " " + say(m.R_HIDDEN, lang) if case.visibility == "hidden" else ""
    # a time is a number a reader reads: the language's decimal separator (ProseFormatter, for a float)
    time = "" if case.time_ms is None else say(m.HTML_MS, lang, ms=float(case.time_ms))
    differs = case.message if case.status not in (Status.ACCEPTED, Status.SKIPPED) else ""
    return (f"<tr><td>{escape(case.id + hidden)}</td><td><code>{escape(case.function)}</code></td>"
            f"<td>{_badge(case.status, lang)}</td><td style='text-align: right'>{escape(time)}</td>"
            f"<td>{escape(differs)}</td></tr>")


def _cases(verdict: Verdict, lang: str) -> str:
    heads = [(m.R_CASE, "left"), (m.R_FUNCTION, "left"), (m.R_STATUS, "left"), (m.R_TIME_COLUMN, "right"),
             (m.HTML_WHAT_DIFFERS, "left")]
    head = "".join(f'<th align="{align}">{escape(say(word, lang))}</th>' for word, align in heads)
    rows = "".join(_case_row(c, lang) for c in verdict.cases)
    return f'<table style="border-collapse: collapse; margin: 6px 0"><tr>{head}</tr>{rows}</table>'


def render_html(verdict: Verdict, headline: str, pictures_dir: Path | None = None, lang: str = "en") -> str:
    """``headline``: the check's own first line ("public cases: 3 of 4 passed; ..."), shown under the status;
    ``lang``: the language of the report's own words (the verdict's texts are rendered in it beforehand:
    :func:`judge.i18n.localize.localize`)."""
    parts = [f'<div class="numpy-judge-verdict" lang="{escape(lang)}" style="{_STYLE}">',
             f"<div>{escape(verdict.problem)}: {_badge(verdict.status, lang)}</div>",
             f"<div>{escape(headline)}</div>"]
    if verdict.notebook is not None:
        parts.append(f"<div>{escape(notebook_line(verdict, lang))}</div>")
    if verdict.message:
        parts.append(_pre([verdict.message]))
    if verdict.patterns:
        parts.append(_heading(say(m.R_COMMON, lang)) + _pre(pattern_lines(verdict)))
    explained = explanation_lines(verdict, lang=lang)
    if explained:
        parts.append(_heading(say(m.R_WENT_WRONG, lang)) + _pre(explained))
    found = counterexample_lines(verdict, lang=lang)
    if found:
        parts.append(_heading(say(m.R_COUNTEREXAMPLE, lang)) + _pre(found))
    if verdict.cases:
        parts.append(_cases(verdict, lang))
    for picture in verdict.pictures if pictures_dir is not None else []:
        try:
            data = base64.b64encode((pictures_dir / picture.file).read_bytes()).decode()  # type: ignore[operator]  # not None: the loop's condition
        except OSError:
            continue
        parts.append(f'<figure style="margin: 6px 0"><img alt="{escape(picture.title)}" '
                     f'src="data:image/png;base64,{data}" style="max-width: 100%"/><figcaption>'
                     f"{escape(picture.title)}</figcaption></figure>")
    for name, out in (("stdout", verdict.stdout), ("stderr", verdict.stderr)):
        if out.text:
            parts.append(_heading(say(m.R_YOUR_STREAM, lang, stream=name, cut="").rstrip(":"))
                         + _pre(out.text.splitlines()[:40]))
    iso = isolation_line(verdict, lang)
    if iso:
        parts.append(f'<div style="color: #6e7781">{escape(iso)}</div>')
    if verdict.isolation is not None and not mode_named(verdict.isolation.mode).sandboxed:
        parts.append(f"<div><strong>{escape(say(m.R_WARNING, lang, note=verdict.isolation.note))}</strong></div>")
    parts.append("</div>")
    return "".join(parts)
