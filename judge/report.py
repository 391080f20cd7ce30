"""Text renderings for people: a verdict for a terminal, a problem's public page."""

from __future__ import annotations

import click
import numpy as np

from judge.verdict import Status, Verdict

_COLOURS = {
    Status.ACCEPTED: "green", Status.WRONG_ANSWER: "red", Status.TIME_LIMIT_EXCEEDED: "yellow",
    Status.MEMORY_LIMIT_EXCEEDED: "yellow", Status.RUNTIME_ERROR: "magenta", Status.COMPILE_ERROR: "magenta",
    Status.INTERNAL_ERROR: "red", Status.SKIPPED: "bright_black",
}


def _status(status: Status, color: bool) -> str:
    text = status.value.replace("_", " ")
    return click.style(text, fg=_COLOURS[status], bold=True) if color else text


def render_text(verdict: Verdict, color: bool = False) -> str:
    lines = [f"{verdict.problem}: {_status(verdict.status, color)}  score {verdict.score:.3f}"]
    if verdict.message:
        lines.append(verdict.message)
    if verdict.cases:
        lines.append("")
        lines.append(f"{'case':28} {'function':26} {'status':24} {'time':>9}")
        for case in verdict.cases:
            name = case.id + (" (hidden)" if case.visibility == "hidden" else "")
            status = _status(case.status, color)
            pad = " " * max(0, 24 - len(case.status.value))
            time = f"{case.time_ms:7.1f} ms" if case.time_ms is not None else ""
            lines.append(f"{name:28} {case.function:26} {status}{pad} {time:>9}")
            if case.status not in (Status.ACCEPTED, Status.SKIPPED) and case.message:
                for text in case.message.splitlines():
                    lines.append(f"    {text}")
    r = verdict.resources
    if r.wall_ms is not None:
        peak = f", peak memory {r.memory_peak_bytes / 2**20:.0f} MiB" if r.memory_peak_bytes else ""
        lines.append(f"\nrun: {r.wall_ms:.0f} ms wall, {r.cpu_ms or 0:.0f} ms CPU{peak}")
    for name, out in (("stdout", verdict.stdout), ("stderr", verdict.stderr)):
        if out.text:
            cut = f" (first {len(out.text)} of {out.bytes} bytes)" if out.truncated else ""
            lines.append(f"\nyour {name}{cut}:")
            lines.extend("  " + line for line in out.text.splitlines()[:40])
    if verdict.isolation is not None and verdict.isolation.mode == "none":
        lines.append(f"\nWARNING: {verdict.isolation.note}")
    return "\n".join(lines) + "\n"


def render_problem(problem: str) -> str:
    from judge.problem.expected import load_reference
    from judge.problem.inputs import build_input_file
    from judge.problem.loader import load_problem

    bundle = load_problem(problem)
    spec = bundle.spec
    out = [bundle.statement.rstrip(), "", "## Limits", ""]
    lim = spec.limits
    out.append(f"- CPU {lim.cpu_seconds:g} s and wall {lim.wall_seconds:g} s for all cases; "
               f"{lim.case_wall_seconds:g} s wall per call; memory {lim.memory_mib} MiB; "
               f"{lim.processes} processes")
    out.append(f"- tolerance: |got - expected| <= {spec.tolerance.atol:g} + {spec.tolerance.rtol:g} * |expected|")
    out.append(f"- allowed imports: {', '.join(spec.imports.allowed)}")
    public = [c for c in bundle.cases.cases if c.visibility == "public"]
    inputs = build_input_file(public)
    reference = load_reference(bundle)
    out += ["", "## Public examples", ""]
    with np.printoptions(precision=7, suppress=True):
        for case, args in zip(public, inputs.cases):
            shown = ", ".join(f"{k}={np.asarray(v).tolist() if isinstance(v, np.ndarray) else v!r}"
                              for k, v in args.values.items())
            out.append(f"{case.function}({shown})  ->")
            out.append(str(getattr(reference, case.function)(**args.values)))
            out.append("")
    inputs.close()
    return "\n".join(out)
