"""The verdict as an HTML fragment, for ``check()`` in Jupyter, JupyterLab, Colab and VS Code notebooks.

The same content as the text report (:mod:`judge.formats.text`): the headline, the cell and line of a
notebook, what went wrong, the counterexample, the case table, the run's cost and the learner's own output,
plus the pictures of failing public cases inline.  Everything that comes from the verdict is escaped; no
script, no external resource, so it renders the same in every front end and in a saved notebook.
"""

from __future__ import annotations

import base64
from html import escape
from pathlib import Path

from judge.formats.explain import counterexample_lines, explanation_lines, notebook_line, pattern_lines
from judge.verdict import Status, Verdict

_COLOURS = {Status.ACCEPTED: "#1a7f37", Status.SKIPPED: "#6e7781"}
_STYLE = ("font-family: system-ui, sans-serif; font-size: 13px; line-height: 1.45; border: 1px solid #d0d7de; "
          "border-radius: 6px; padding: 10px 14px; max-width: 60em")


def _badge(status: Status) -> str:
    colour = _COLOURS.get(status, "#cf222e")
    return f'<strong style="color: {colour}">{escape(status.value.replace("_", " "))}</strong>'


def _pre(lines: list[str]) -> str:
    return ('<pre style="white-space: pre-wrap; margin: 4px 0">' + escape("\n".join(lines)) + "</pre>") if lines else ""


def render_html(verdict: Verdict, headline: str, pictures_dir: Path | None = None) -> str:
    """``headline``: the check's own first line ("public cases: 3 of 4 passed; ..."), shown under the status."""
    parts = [f'<div class="numpy-judge-verdict" style="{_STYLE}">',
             f"<div>{escape(verdict.problem)}: {_badge(verdict.status)}</div>",
             f"<div>{escape(headline)}</div>"]
    if verdict.notebook is not None:
        parts.append(f"<div>{escape(notebook_line(verdict))}</div>")
    if verdict.message:
        parts.append(_pre([verdict.message]))
    explained = pattern_lines(verdict) + explanation_lines(verdict)
    if explained:
        parts.append("<div><em>What went wrong</em></div>" + _pre(explained))
    found = counterexample_lines(verdict)
    if found:
        parts.append("<div><em>The smallest input where your code differs</em></div>" + _pre(found))
    if verdict.cases:
        rows = "".join(
            f"<tr><td>{escape(c.id)}{' (hidden)' if c.visibility == 'hidden' else ''}</td><td><code>"
            f"{escape(c.function)}</code></td><td>{_badge(c.status)}</td><td style='text-align: right'>"
            f"{'' if c.time_ms is None else f'{c.time_ms:.1f} ms'}</td><td>"
            f"{escape(c.message) if c.status not in (Status.ACCEPTED, Status.SKIPPED) else ''}</td></tr>"
            for c in verdict.cases)
        parts.append('<table style="border-collapse: collapse; margin: 6px 0"><tr><th align="left">case</th>'
                     '<th align="left">function</th><th align="left">status</th><th>time</th>'
                     f'<th align="left">what differs</th></tr>{rows}</table>')
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
            parts.append(f"<div><em>your {name}</em></div>" + _pre(out.text.splitlines()[:40]))
    if verdict.isolation is not None:
        parts.append(f'<div style="color: #6e7781">isolation: {escape(verdict.isolation.mode)}'
                     f"{' - ' + escape(verdict.isolation.note) if verdict.isolation.note else ''}</div>")
    parts.append("</div>")
    return "".join(parts)
