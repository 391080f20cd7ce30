"""Text renderings for people: a verdict for a terminal, a problem's public page."""

from __future__ import annotations

from typing import Any

import click

from judge.i18n import messages as m
from judge.i18n.catalog import say
from judge.sandbox import mode_named
from judge.verdict import Status, Verdict

_COLOURS = {
    Status.ACCEPTED: "green", Status.WRONG_ANSWER: "red", Status.TIME_LIMIT_EXCEEDED: "yellow",
    Status.MEMORY_LIMIT_EXCEEDED: "yellow", Status.RUNTIME_ERROR: "magenta", Status.COMPILE_ERROR: "magenta",
    Status.INTERNAL_ERROR: "red", Status.SKIPPED: "bright_black",
}


def _status_text(status: Status, lang: str) -> str:
    return say(m.STATUS_WORDS[status.value], lang)


def _status(status: Status, color: bool, lang: str = "en") -> str:
    text = _status_text(status, lang)
    return click.style(text, fg=_COLOURS[status], bold=True) if color else text


def _paint(text: str, color: bool, **style: Any) -> str:
    return click.style(text, **style) if color else text


def _diagnoses(verdict: Verdict, color: bool, lang: str) -> list[str]:
    from judge.formats.explain import (
        counterexample_lines,
        explanation_lines,
        pattern_lines,
        time_lines,
    )

    lines = []
    if verdict.patterns:
        lines += ["", _paint(say(m.R_COMMON, lang), color, bold=True)]
        lines += [f"  {p}" for p in pattern_lines(verdict)]
    body = explanation_lines(verdict, lang=lang)
    if body:
        lines += ["", _paint(say(m.R_WENT_WRONG, lang), color, bold=True)] + body
    if verdict.counterexample:
        lines += ["", _paint(say(m.R_COUNTEREXAMPLE, lang), color, bold=True)] + counterexample_lines(verdict,
                                                                                                        lang=lang)
    if verdict.time_feedback:
        lines += ["", _paint(say(m.R_TIME, lang), color, bold=True)] + time_lines(verdict)
    if verdict.pictures:
        lines += ["", _paint(say(m.R_PICTURES, lang), color, bold=True)]
        lines += [f"  {p.file}: {p.title}" for p in verdict.pictures]
    return lines


def _checks(verdict: Verdict, color: bool, lang: str) -> list[str]:
    if not verdict.checks:
        return []
    lines = [
        "",
        _paint(say(m.R_PROPERTIES, lang), color, bold=True) + " " + say(m.R_PROPERTIES_NOTE, lang),
    ]
    for c in verdict.checks:
        ok, fail = say(m.R_MARK_OK, lang), say(m.R_MARK_FAIL, lang)
        width = max(len(ok), len(fail))
        mark = _paint(f"{ok:<{width}}", color, fg="green") if c.holds else \
            _paint(f"{fail:<{width}}", color, fg="red", bold=True)
        where = "" if c.holds else "  " + say(m.R_FAILS_IN, lang, failed=len(c.failed_cases), checked=c.checked)
        lines.append(f"  {mark} {c.description}{where}")
    return lines


def _num(x: float | None) -> str:
    return f"{'nan/inf':>10}" if x is None else f"{x:>10.7f}" if abs(x) < 1e4 else f"{x:>10.3g}"


def _windows(verdict: Verdict, color: bool, lang: str, limit: int = 2) -> list[str]:
    lines: list[str] = []
    shown = 0
    for case in verdict.cases:
        f = case.facts
        if shown >= limit or case.visibility != "public" or f is None or f.window is None:
            continue
        w = f.window
        shown += 1
        lines += ["", _paint(say(m.R_EXPECTED_VS_GOT, lang, case=case.id), color, bold=True)
                  + (", " + say(m.R_AROUND, lang, where=f.worst_where) if f.worst_where else "")]
        if w.where:
            lines.append("  " + say(m.R_AT, lang, where=w.where))
        col_head = "".join(f"{(w.col_label + '=' + str(j)) if w.col_label else str(j):>10} " for j in w.cols)
        lead = " " * 8
        lines.append(f"{lead}{say(m.R_EXPECTED, lang):<{11 * len(w.cols)}}   {say(m.R_GOT, lang)}")
        lines.append(f"{lead}{col_head}   {col_head}")
        for r, erow, grow in zip(w.rows, w.expected, w.got):
            label = f"{w.row_label}={r}" if w.row_label else str(r)
            left = "".join(_num(v) + " " for v in erow)
            right = ""
            for c, (e, g) in zip(w.cols, zip(erow, grow)):
                bad = g is None or abs(g - e) > f.atol + f.rtol * abs(e)
                cell = _num(g) + ("*" if [r, c] == w.worst else " ")
                right += _paint(cell, color, fg="red") if bad else cell
            lines.append(f"  {label:<6}{left}   {right}")
        lines.append("  " + say(m.R_LARGEST_RED if color else m.R_LARGEST, lang))
    return lines


def isolation_line(verdict: Verdict, lang: str = "en") -> str | None:
    """How the learner's code ran, in one line: the mode, what enforced the limits, what the mode does not give."""
    iso = verdict.isolation
    if iso is None:
        return None
    by = ", " + say(m.R_LIMITS_BY, lang, by=iso.limits_by) if iso.limits_by else ""
    gaps = "; " + say(m.R_NOT_ENFORCED, lang, what=", ".join(iso.not_enforced)) if iso.not_enforced else ""
    return say(m.R_ISOLATION, lang, mode=iso.mode) + by + gaps


def _in_report_order(verdict: Verdict) -> list:
    """Public cases first (the ones a learner can rerun), then the hidden ones, each in the bundle's order."""
    return [c for c in verdict.cases if c.visibility == "public"] + \
        [c for c in verdict.cases if c.visibility != "public"]


def _case_lines(cases: list, color: bool, lang: str = "en") -> list[str]:
    lines = [f"{say(m.R_CASE, lang):28} {say(m.R_FUNCTION, lang):26} {say(m.R_STATUS, lang):24} "
             f"{say(m.R_TIME_COLUMN, lang):>9}"]
    hidden = " " + say(m.R_HIDDEN, lang)
    for case in cases:
        name = case.id + (hidden if case.visibility == "hidden" else "")
        status = _status(case.status, color, lang)
        pad = " " * max(0, 24 - len(_status_text(case.status, lang)))
        time = f"{case.time_ms:7.1f} ms" if case.time_ms is not None else ""
        lines.append(f"{name:28} {case.function:26} {status}{pad} {time:>9}")
        if case.status not in (Status.ACCEPTED, Status.SKIPPED) and case.message:
            for text in case.message.splitlines():
                lines.append(f"    {text}")
    return lines


def render_public_text(verdict: Verdict, color: bool = False, lang: str = "en") -> str:
    """The first lines of a phased ``judge grade``: the public cases' verdict, printed while the hidden cases
    still run (the full report follows)."""
    passed = sum(c.status is Status.ACCEPTED for c in verdict.cases)
    lines = [say(m.R_PUBLIC_FIRST, lang, problem=verdict.problem, status=_status(verdict.status, color, lang),
                 passed=passed, total=len(verdict.cases)), *_case_lines(verdict.cases, color, lang), ""]
    return "\n".join(lines) + "\n"


def render_text(verdict: Verdict, color: bool = False, file: str | None = None, lang: str = "en") -> str:
    """The terminal report; ``file``: the learner's file name, which tracebacks then name (the sandbox ran it
    as submission.py).  ``lang``: the language of the report's own words; the verdict's texts are rendered in it
    beforehand (:func:`judge.i18n.localize.localize`)."""
    passed = sum(c.status is Status.ACCEPTED for c in verdict.cases)
    counts = " " + say(m.R_COUNTS, lang, passed=passed, total=len(verdict.cases)) if verdict.cases else ""
    lines = [say(m.R_HEADLINE, lang, problem=verdict.problem, status=_status(verdict.status, color, lang),
                 score=f"{verdict.score:.3f}", counts=counts)]
    if verdict.notebook is not None:
        from judge.formats.explain import notebook_line

        lines.append(notebook_line(verdict, lang))
    if verdict.message:
        lines.append(verdict.message)
    lines += _diagnoses(verdict, color, lang)
    lines += _checks(verdict, color, lang)
    if verdict.cases:
        lines.append("")
        lines += _case_lines(_in_report_order(verdict), color, lang)
    lines += _windows(verdict, color, lang)
    r = verdict.resources
    if r.wall_ms is not None:
        peak = ", " + say(m.R_PEAK, lang, mib=f"{r.memory_peak_bytes / 2**20:.0f}") if r.memory_peak_bytes else ""
        lines.append("\n" + say(m.R_RUN, lang, wall=f"{r.wall_ms:.0f}", cpu=f"{r.cpu_ms or 0:.0f}") + peak)
    iso = isolation_line(verdict, lang)
    if iso:
        lines.append(iso)
    for name, out in (("stdout", verdict.stdout), ("stderr", verdict.stderr)):
        if out.text:
            cut = say(m.R_FIRST_BYTES, lang, shown=len(out.text), total=out.bytes) if out.truncated else ""
            lines.append("\n" + say(m.R_YOUR_STREAM, lang, stream=name, cut=cut))
            text = out.text.replace('File "submission.py"', f'File "{file}"') if file else out.text
            lines.extend("  " + line for line in text.splitlines()[:40])
    if verdict.isolation is not None and not mode_named(verdict.isolation.mode).sandboxed:
        lines.append("\n" + say(m.R_WARNING, lang, note=verdict.isolation.note))
    return "\n".join(lines) + "\n"
