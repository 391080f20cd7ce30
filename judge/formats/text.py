"""Text renderings for people: a verdict for a terminal, a problem's public page."""

from __future__ import annotations

from typing import Any

import click

from judge.sandbox import mode_named
from judge.verdict import Status, Verdict

_COLOURS = {
    Status.ACCEPTED: "green", Status.WRONG_ANSWER: "red", Status.TIME_LIMIT_EXCEEDED: "yellow",
    Status.MEMORY_LIMIT_EXCEEDED: "yellow", Status.RUNTIME_ERROR: "magenta", Status.COMPILE_ERROR: "magenta",
    Status.INTERNAL_ERROR: "red", Status.SKIPPED: "bright_black",
}


def _status(status: Status, color: bool) -> str:
    text = status.value.replace("_", " ")
    return click.style(text, fg=_COLOURS[status], bold=True) if color else text


def _paint(text: str, color: bool, **style: Any) -> str:
    return click.style(text, **style) if color else text


def _diagnoses(verdict: Verdict, color: bool) -> list[str]:
    from judge.formats.explain import (
        COUNTEREXAMPLE_TITLE,
        counterexample_lines,
        explanation_lines,
        pattern_lines,
        time_lines,
    )

    lines = []
    if verdict.patterns:
        lines += ["", _paint("What the failing cases have in common", color, bold=True)]
        lines += [f"  {p}" for p in pattern_lines(verdict)]
    body = explanation_lines(verdict)
    if body:
        lines += ["", _paint("What went wrong", color, bold=True)] + body
    if verdict.counterexample:
        lines += ["", _paint(COUNTEREXAMPLE_TITLE, color, bold=True)] + counterexample_lines(verdict)
    if verdict.time_feedback:
        lines += ["", _paint("Time", color, bold=True)] + time_lines(verdict)
    if verdict.pictures:
        lines += ["", _paint("Pictures", color, bold=True)]
        lines += [f"  {p.file}: {p.title}" for p in verdict.pictures]
    return lines


def _checks(verdict: Verdict, color: bool) -> list[str]:
    if not verdict.checks:
        return []
    lines = [
        "",
        _paint("Properties of your output", color, bold=True)
        + " (facts checked without the answer, on the failing cases)",
    ]
    for c in verdict.checks:
        mark = _paint("ok  ", color, fg="green") if c.holds else _paint("FAIL", color, fg="red", bold=True)
        where = "" if c.holds else f"  (fails in {len(c.failed_cases)} of {c.checked} cases)"
        lines.append(f"  {mark} {c.description}{where}")
    return lines


def _num(x: float | None) -> str:
    return f"{'nan/inf':>10}" if x is None else f"{x:>10.7f}" if abs(x) < 1e4 else f"{x:>10.3g}"


def _windows(verdict: Verdict, color: bool, limit: int = 2) -> list[str]:
    lines: list[str] = []
    shown = 0
    for case in verdict.cases:
        f = case.facts
        if shown >= limit or case.visibility != "public" or f is None or f.window is None:
            continue
        w = f.window
        shown += 1
        lines += ["", _paint(f"Expected vs got, case {case.id}", color, bold=True)
                  + (f", around {f.worst_where}" if f.worst_where else "")]
        if w.where:
            lines.append(f"  at {w.where}")
        col_head = "".join(f"{(w.col_label + '=' + str(j)) if w.col_label else str(j):>10} " for j in w.cols)
        lead = " " * 8
        lines.append(f"{lead}{'expected':<{11 * len(w.cols)}}   got")
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
        lines.append("  (* the largest error; values outside the tolerance are marked red in colour)" if color
                     else "  (* the largest error)")
    return lines


def isolation_line(verdict: Verdict) -> str | None:
    """How the learner's code ran, in one line: the mode, what enforced the limits, what the mode does not give."""
    iso = verdict.isolation
    if iso is None:
        return None
    by = f", limits by {iso.limits_by}" if iso.limits_by else ""
    gaps = f"; not enforced: {', '.join(iso.not_enforced)}" if iso.not_enforced else ""
    return f"isolation: {iso.mode}{by}{gaps}"


def _in_report_order(verdict: Verdict) -> list:
    """Public cases first (the ones a learner can rerun), then the hidden ones, each in the bundle's order."""
    return [c for c in verdict.cases if c.visibility == "public"] + \
        [c for c in verdict.cases if c.visibility != "public"]


def _case_lines(cases: list, color: bool) -> list[str]:
    lines = [f"{'case':28} {'function':26} {'status':24} {'time':>9}"]
    for case in cases:
        name = case.id + (" (hidden)" if case.visibility == "hidden" else "")
        status = _status(case.status, color)
        pad = " " * max(0, 24 - len(case.status.value))
        time = f"{case.time_ms:7.1f} ms" if case.time_ms is not None else ""
        lines.append(f"{name:28} {case.function:26} {status}{pad} {time:>9}")
        if case.status not in (Status.ACCEPTED, Status.SKIPPED) and case.message:
            for text in case.message.splitlines():
                lines.append(f"    {text}")
    return lines


def render_public_text(verdict: Verdict, color: bool = False) -> str:
    """The first lines of a phased ``judge grade``: the public cases' verdict, printed while the hidden cases
    still run (the full report follows)."""
    passed = sum(c.status is Status.ACCEPTED for c in verdict.cases)
    lines = [f"{verdict.problem}: public cases {_status(verdict.status, color)}  ({passed} of "
             f"{len(verdict.cases)} passed); the hidden cases are running", *_case_lines(verdict.cases, color), ""]
    return "\n".join(lines) + "\n"


def render_text(verdict: Verdict, color: bool = False, file: str | None = None) -> str:
    """The terminal report; ``file``: the learner's file name, which tracebacks then name (the sandbox ran it
    as submission.py)."""
    passed = sum(c.status is Status.ACCEPTED for c in verdict.cases)
    counts = f" ({passed} of {len(verdict.cases)} cases passed)" if verdict.cases else ""
    lines = [f"{verdict.problem}: {_status(verdict.status, color)}  score {verdict.score:.3f}{counts}"]
    if verdict.notebook is not None:
        from judge.formats.explain import notebook_line

        lines.append(notebook_line(verdict))
    if verdict.message:
        lines.append(verdict.message)
    lines += _diagnoses(verdict, color)
    lines += _checks(verdict, color)
    if verdict.cases:
        lines.append("")
        lines += _case_lines(_in_report_order(verdict), color)
    lines += _windows(verdict, color)
    r = verdict.resources
    if r.wall_ms is not None:
        peak = f", peak memory {r.memory_peak_bytes / 2**20:.0f} MiB" if r.memory_peak_bytes else ""
        lines.append(f"\nrun: {r.wall_ms:.0f} ms wall, {r.cpu_ms or 0:.0f} ms CPU{peak}")
    iso = isolation_line(verdict)
    if iso:
        lines.append(iso)
    for name, out in (("stdout", verdict.stdout), ("stderr", verdict.stderr)):
        if out.text:
            cut = f" (first {len(out.text)} of {out.bytes} bytes)" if out.truncated else ""
            lines.append(f"\nyour {name}{cut}:")
            text = out.text.replace('File "submission.py"', f'File "{file}"') if file else out.text
            lines.extend("  " + line for line in text.splitlines()[:40])
    if verdict.isolation is not None and not mode_named(verdict.isolation.mode).sandboxed:
        lines.append(f"\nWARNING: {verdict.isolation.note}")
    return "\n".join(lines) + "\n"
