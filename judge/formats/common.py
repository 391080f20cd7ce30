"""What every verdict format shares: short labels, the learner-facing summary, what output may be shown.

Hidden cases never show their arguments, values, locations or what was printed during them: every format
goes through these helpers for that.
"""

from __future__ import annotations

from judge.i18n import messages as m
from judge.i18n.catalog import say
from judge.problem.loader import Bundle
from judge.problem.models import ArrayArg, CaseSpec
from judge.verdict import CaseResult, Status, Verdict


def cut(text: str, limit: int, note: str | None = None, lang: str = "en") -> str:
    """``text`` in at most ``limit`` characters, the note (default: "... (truncated)" in ``lang``) included when
    it had to be cut."""
    if note is None:
        note = say(m.X_TRUNCATED, lang)
    if len(text) <= limit:
        return text
    return text[: max(0, limit - len(note))] + note[:limit]


def case_label(case: CaseResult, lang: str = "en") -> str:
    """A public case's id; a hidden one's id marked hidden (a learner's view names them "hidden case K of N",
    in ``lang`` once localized: such a name has no parenthesis to add)."""
    named = say(m.HIDDEN_LABEL, lang, k=0, n=0).split("0")[0]  # "hidden case ", "cas caché ", ...
    if case.visibility != "hidden" or case.id.startswith(("hidden case ", named)):
        return case.id
    return say(m.HIDDEN_SUFFIX, lang, case=case.id)


def diagnoses_for(verdict: Verdict, case: CaseResult) -> list[str]:
    """Names that explain this case (the explanation, or ones that partly explain the whole run)."""
    return [d.id for d in verdict.diagnoses if case.id in d.cases]


def patterns_for(verdict: Verdict, case: CaseResult) -> list[str]:
    return [p.description for p in verdict.patterns if case.id in p.cases]


def summary(verdict: Verdict, lang: str = "en") -> str:
    """The learner-facing summary: verdict, what the failing cases share, the explanation, then the facts."""
    from judge.formats.explain import (
        counterexample_lines,
        explanation_lines,
        notebook_line,
        pattern_lines,
        time_lines,
    )

    passed = sum(c.status is Status.ACCEPTED for c in verdict.cases)
    shown = verdict.shown
    withheld = (say(m.X_WITHHELD, lang, passed=shown.withheld_passed, total=shown.withheld_cases)
                if shown is not None and shown.withheld_cases else "")   # never "all passed" while hidden failed
    lines = [say(m.X_HEADLINE, lang, problem=verdict.problem, status=say(m.STATUS_WORDS[verdict.status.value], lang),
                 score=verdict.score)
             + (say(m.X_COUNTS, lang, passed=passed, total=len(verdict.cases), withheld=withheld)
                if verdict.cases else "")]
    if verdict.notebook is not None:
        lines.append(notebook_line(verdict, lang))
    lines += pattern_lines(verdict)
    if any(c.status is Status.WRONG_ANSWER for c in verdict.cases):
        full = [d for d in verdict.diagnoses if d.explains]
        if full:
            lines.append(say(m.X_LIKELY_MISTAKE, lang, id=full[0].id, confidence=float(full[0].confidence)))
        lines += [line.strip() for line in explanation_lines(verdict, indent="", lang=lang)]
        for check in verdict.checks:
            if not check.holds:
                lines.append(say(m.X_PROPERTY_VIOLATED, lang, description=check.description,
                                 failed=len(check.failed_cases), checked=check.checked))
    if verdict.counterexample:
        lines += [say(m.R_COUNTEREXAMPLE, lang) + ":"] + counterexample_lines(verdict, lang=lang)
    lines += [line.strip() for line in time_lines(verdict)]
    if verdict.message:
        lines.append(verdict.message)
    return "\n".join(lines)


def case_output(case: CaseResult) -> str | None:
    """What the learner's code printed during this call, for a public case; None for a hidden one (its prints
    could reveal its arguments) or when the run's capture could not be split per call."""
    if case.visibility != "public" or case.output is None:
        return None
    return case.output.stdout


def printed_output(verdict: Verdict) -> str | None:
    """What the learner's code printed that may be shown: while the file loaded and during public cases.

    Hidden cases' prints are withheld (they could reveal the cases' arguments); when the capture could not be
    split per call, nothing is shown once a hidden case ran.
    """
    ran_hidden = [c for c in verdict.cases if c.visibility == "hidden" and c.status is not Status.SKIPPED]
    if any(c.output is None for c in ran_hidden):
        return None
    if not ran_hidden and all(c.output is None for c in verdict.cases):
        return verdict.stdout.text
    parts = [verdict.load_output.stdout] if verdict.load_output is not None else []
    parts += [case_output(c) or "" for c in verdict.cases]
    return "".join(parts)


def output_note(verdict: Verdict, lang: str = "en") -> str:
    """One line about printed output that is withheld ("" when nothing is withheld)."""
    if not verdict.stdout.bytes:
        return ""
    shown = printed_output(verdict)
    if shown is None or len(shown.encode()) < verdict.stdout.bytes:
        return say(m.X_OUTPUT_WITHHELD, lang)
    return ""


def case_message(verdict: Verdict, case: CaseResult, lang: str = "en") -> str:
    ids = [d.id for d in verdict.diagnoses if case.id in d.cases and d.explains]
    text = case.message or (say(m.X_NOT_RUN, lang) if case.status is Status.SKIPPED else "")
    if ids:
        text = f"{say(m.X_CASE_LIKELY, lang, ids=', '.join(ids))}\n{text}"
    for p in patterns_for(verdict, case):
        text = f"{say(m.X_CASE_PATTERN, lang, pattern=p)}\n{text}"
    return text


def _arg(value: object) -> str:
    if isinstance(value, ArrayArg):
        if value.literal is not None:
            return f"np.array({value.literal!r}" + (f", dtype=np.{value.dtype})" if value.dtype else ")")
        g = value.generate
        assert g is not None
        return f"<{g.dtype} array of shape {tuple(g.shape)}{', ' + value.layout if value.layout != 'c' else ''}>"
    return repr(value)


def call_text(spec: CaseSpec) -> str:
    """A public case's call as Python, arrays described by their shape and dtype."""
    return f"{spec.function}({', '.join(f'{k}={_arg(v)}' for k, v in spec.args.items())})"


def test_code(bundle: Bundle | None, case: CaseResult, lang: str = "en") -> str:
    """The call a public case makes; hidden cases say only that they are hidden."""
    if case.visibility != "public":
        return f"{case.function}(...)  # {say(m.X_HIDDEN_CODE, lang)}"
    if bundle is not None:
        for spec in bundle.cases.cases:
            if spec.id == case.id:
                return call_text(spec)
    return f"{case.function}(...)  # {say(m.X_CASE_CODE, lang, case=case.id)}"
