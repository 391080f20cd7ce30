"""The text ``judge show`` prints: a problem's statement, limits and public examples with their expected
outputs (computed by the reference, in the judge's process)."""

from __future__ import annotations

import numpy as np


def render_problem(problem: str, lang: str | None = None) -> str:
    """``lang``: the statement in that language when the bundle has it (English otherwise, said once)."""
    from judge.problem.expected import load_reference
    from judge.problem.inputs import build_input_file
    from judge.problem.loader import load_problem

    bundle = load_problem(problem)
    spec = bundle.spec
    text = bundle.statement
    if lang:
        from judge.problem.translations import statement

        text, used = statement(bundle, lang)
        if used == "en" and not lang.lower().startswith("en"):
            text = f"(This problem has no statement in {lang}: here it is in English.)\n\n{text}"
    out = [text.rstrip(), "", "## Limits", ""]
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
            out.append(
                f"raises {case.raises}" if case.raises else str(getattr(reference, case.function)(**args.values))
            )
            out.append("")
    inputs.close()
    return "\n".join(out)


#: What each level shows of a hidden case, in the words ``judge show --as-learner`` prints.
LEVEL_WORDS = {
    "score": "nothing but the score: hidden cases are not listed, their weight counts in the score",
    "status": "each hidden case's status (wrong answer, raised an exception, ...), nothing else",
    "diagnosis": "status, time, the share of wrong values, the exception's class, the failure pattern and the "
                 "named mistake; never inputs, shapes, values or what the call printed",
    "full": "everything, as the teacher sees it: arguments' shapes, messages, values",
}


def render_as_learner(problem: str) -> str:
    """The case list as a learner sees it under the bundle's feedback policy (no code is run): public cases with
    their calls, hidden cases as the learner's view names them, and what the policy shows of them, and when."""
    from judge.formats.common import call_text
    from judge.formats.learner import hidden_label
    from judge.problem.feedback_policy import FeedbackLevel
    from judge.problem.loader import load_problem

    bundle = load_problem(problem)
    policy = bundle.spec.feedback
    hidden = [c for c in bundle.cases.cases if c.visibility != "public"]
    stated = "feedback" in bundle.spec.model_fields_set
    out = [f"# {bundle.spec.title}: what a learner sees", "",
           f"Feedback policy ({'problem.yaml' if stated else 'the default: problem.yaml has no feedback: section'}):",
           f"- hidden cases: {policy.hidden.value}: {LEVEL_WORDS[policy.hidden.value]}",
           "- hidden case ids: " + ("shown as written" if policy.hidden_ids else
                                    "anonymous (\"hidden case K of N\")")]
    if policy.due is not None and policy.after_due is not None:
        out.append(f"- from {policy.due.isoformat()}: {policy.after_due.value}: {LEVEL_WORDS[policy.after_due.value]}")
    out += ["", "## Cases", ""]
    level = policy.level()   # today's: after the due date, what after_due shows
    named = policy.hidden_ids or level is FeedbackLevel.FULL
    for case in bundle.cases.cases:
        if case.visibility == "public":
            out.append(f"- {case.id}: {call_text(case)}")
    if level is FeedbackLevel.SCORE:
        out.append(f"- {len(hidden)} hidden cases: only their score")
    else:
        for k, case in enumerate(hidden, start=1):
            name = case.id if named else hidden_label(k, len(hidden))
            out.append(f"- {name}: {case.function}(...)  (hidden)")
    return "\n".join(out) + "\n"
