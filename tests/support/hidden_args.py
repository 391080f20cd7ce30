"""What a file that prints its run's calls reveals: the ``A:<args>`` tokens of
``submissions/sinusoidal-pe/runtime_error/attack_print_hidden_args_in_public_case.py``, per case, and where they
appear whole in what a learner is shown."""

from __future__ import annotations

import re

import numpy as np

from judge.problem.loader import load_problem
from judge.problem.models import ArrayArg
from tests.support.common import SUBMISSIONS

ATTACK = SUBMISSIONS / "runtime_error" / "attack_print_hidden_args_in_public_case.py"


def tokens(visibility: str) -> set[str]:
    """The token the attack writes for each sinusoidal-pe case of ``visibility`` (scalars, and array shapes)."""
    found = set()
    for case in load_problem("sinusoidal-pe").cases.cases:
        if case.visibility != visibility:
            continue
        parts = []
        for value in case.args.values():
            if isinstance(value, ArrayArg):
                shape = value.generate.shape if value.generate is not None else np.shape(value.literal)
                parts.append("s" + "x".join(str(n) for n in shape))
            else:
                parts.append(str(value))
        found.add("A:" + "x".join(parts))
    return found


def found_in(wanted: set[str], text: str) -> list[str]:
    """The tokens written whole in ``text`` (the counterexample search's own calls, e.g. ``A:1x1x10000``, are
    other tokens: its candidates are the judge's, with every default filled in)."""
    return [t for t in wanted if re.search(re.escape(t) + r"(?![\w.])", text)]
