"""The text ``judge show`` prints: a problem's statement, limits and public examples with their expected
outputs (computed by the reference, in the judge's process)."""

from __future__ import annotations

import numpy as np


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
            out.append(
                f"raises {case.raises}" if case.raises else str(getattr(reference, case.function)(**args.values))
            )
            out.append("")
    inputs.close()
    return "\n".join(out)
