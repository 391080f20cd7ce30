"""Exports of one verdict to the result formats course platforms read.

One interface: ``export(verdict, fmt, bundle=None) -> str``; each format is a
module with ``export(verdict, bundle=None) -> str``.  The bundle, when given,
supplies the public cases' calls (for formats with a test-code field); hidden
cases never show their arguments, values or locations.
"""

from __future__ import annotations

from typing import Callable

from judge.problem.loader import Bundle
from judge.problem.models import ArrayArg
from judge.verdict import CaseResult, Status, Verdict

FORMATS = ("gradescope", "exercism", "junit")


def export(verdict: Verdict, fmt: str, bundle: Bundle | None = None) -> str:
    return exporter(fmt)(verdict, bundle)


def exporter(fmt: str) -> Callable[[Verdict, Bundle | None], str]:
    if fmt == "gradescope":
        from judge.export.gradescope import export as fn
    elif fmt == "exercism":
        from judge.export.exercism import export as fn
    elif fmt == "junit":
        from judge.export.junit import export as fn
    else:
        raise ValueError(f"unknown export format {fmt!r} (choose {', '.join(FORMATS)})")
    return fn


def cut(text: str, limit: int, note: str = "... (truncated)") -> str:
    """``text`` in at most ``limit`` characters, the note included when it had to be cut."""
    if len(text) <= limit:
        return text
    return text[: max(0, limit - len(note))] + note[:limit]


def case_label(case: CaseResult) -> str:
    return f"{case.id} (hidden)" if case.visibility == "hidden" else case.id


def diagnoses_for(verdict: Verdict, case: CaseResult) -> list[str]:
    """Names that explain this case (the explanation, or ones that partly explain the whole run)."""
    return [d.id for d in verdict.diagnoses if case.id in d.cases]


def patterns_for(verdict: Verdict, case: CaseResult) -> list[str]:
    return [p.description for p in verdict.patterns if case.id in p.cases]


def summary(verdict: Verdict) -> str:
    """The learner-facing summary: verdict, what the failing cases share, the explanation, then the facts."""
    from judge.report_feedback import explanation_lines, pattern_lines, time_lines

    passed = sum(c.status is Status.ACCEPTED for c in verdict.cases)
    lines = [f"{verdict.problem}: {verdict.status.value.replace('_', ' ')}, score {verdict.score:.3f}"
             + (f" ({passed} of {len(verdict.cases)} cases passed)" if verdict.cases else "")]
    lines += pattern_lines(verdict)
    if any(c.status is Status.WRONG_ANSWER for c in verdict.cases):
        full = [d for d in verdict.diagnoses if d.explains]
        if full:
            lines.append(f"Likely mistake: {full[0].id} (confidence {full[0].confidence:.0%})")
        lines += [line.strip() for line in explanation_lines(verdict, indent="")]
        for check in verdict.checks:
            if not check.holds:
                lines.append(f"Property violated: {check.description} "
                             f"(in {len(check.failed_cases)} of {check.checked} failing cases)")
    lines += [line.strip() for line in time_lines(verdict)]
    if verdict.message:
        lines.append(verdict.message)
    return "\n".join(lines)


def case_message(verdict: Verdict, case: CaseResult) -> str:
    ids = [d.id for d in verdict.diagnoses if case.id in d.cases and d.explains]
    text = case.message or ("not run" if case.status is Status.SKIPPED else "")
    if ids:
        text = f"likely mistake: {', '.join(ids)}\n{text}"
    for p in patterns_for(verdict, case):
        text = f"pattern: {p}\n{text}"
    return text


def _arg(value: object) -> str:
    if isinstance(value, ArrayArg):
        if value.literal is not None:
            return f"np.array({value.literal!r}" + (f", dtype=np.{value.dtype})" if value.dtype else ")")
        g = value.generate
        assert g is not None
        return f"<{g.dtype} array of shape {tuple(g.shape)}{', ' + value.layout if value.layout != 'c' else ''}>"
    return repr(value)


def test_code(bundle: Bundle | None, case: CaseResult) -> str:
    """The call a public case makes; hidden cases say only that they are hidden."""
    if case.visibility != "public":
        return f"{case.function}(...)  # hidden case: its arguments are not shown"
    if bundle is not None:
        for spec in bundle.cases.cases:
            if spec.id == case.id:
                args = ", ".join(f"{k}={_arg(v)}" for k, v in spec.args.items())
                return f"{case.function}({args})"
    return f"{case.function}(...)  # case {case.id}"
