"""The isolation ladder: which mode this machine can give, chosen best first, or demanded.

The modes, best first, are :data:`judge.sandbox.modes.LADDER` (each one's class says what it is and checks
whether this machine can give it, with a real attempt in a throw-away child, like isolate's environment
check).  A mode is demanded with ``--isolation MODE`` or ``JUDGE_ISOLATION``; ``auto`` (the default) takes
the first automatic mode (full, rootless, reduced) the machine can give.  ``JUDGE_MIN_ISOLATION`` refuses any
mode that enforces fewer rows of the guarantee table (:mod:`judge.sandbox.modes.guarantees`) than the named one
here, or as many without namespaces of its own.
"""

from __future__ import annotations

import os

from judge.errors import SandboxUnavailable
from judge.sandbox.chain.launch import ENV_MODE  # defined where a cold start's launch reads it, before this module
from judge.sandbox.modes import LADDER, automatic, guarantees, mode_named
from judge.sandbox.modes.base import Rung

ENV_MINIMUM = "JUDGE_MIN_ISOLATION"
CHOICES = ("auto", *LADDER)


def check(mode: str) -> Rung:
    """Whether this machine can give ``mode`` now, and why (not)."""
    try:
        return mode_named(mode).check()
    except KeyError:
        raise SandboxUnavailable(f"unknown isolation mode {mode!r} (choose {', '.join(CHOICES)})") from None


def ladder() -> list[Rung]:
    """Every mode, best first, with whether this machine can give it (for ``judge doctor``)."""
    return [check(m) for m in LADDER]


def landlock_here() -> bool:
    """Whether a mode reduced run here would be confined by Landlock (see judge.sandbox.kernel.landlock)."""
    from judge.sandbox.kernel.landlock import abi_version

    return abi_version() > 0


def not_enforced_here(mode: str) -> list[str]:
    """The rows ``mode`` would not enforce on this machine (mode reduced: with or without Landlock)."""
    return mode_named(mode).not_enforced(landlock=landlock_here())


def strength(mode: str, here: bool = False) -> tuple[int, int]:
    """How strong ``mode`` is: the rows it enforces (on this machine when ``here``), then whether its runs have
    namespaces of their own (mode reduced confined by Landlock enforces every row, yet is weaker than full)."""
    missing = not_enforced_here(mode) if here else mode_named(mode).not_enforced()
    return len(guarantees.ROWS) - len(missing), int(mode_named(mode).namespaced)


def choose(demanded: str | None = None, unsafe_no_sandbox: bool = False,
           minimum: str | None = None) -> tuple[str, str]:
    """(mode, note).  ``demanded`` (else JUDGE_ISOLATION, else auto); ``minimum`` (else
    JUDGE_MIN_ISOLATION).  Raises SandboxUnavailable with a clear message when the machine
    cannot give what is asked."""
    demanded = demanded or os.environ.get(ENV_MODE) or ("none" if unsafe_no_sandbox else "auto")
    minimum = minimum or os.environ.get(ENV_MINIMUM) or None
    for name, value in (("isolation mode", demanded), (ENV_MINIMUM, minimum)):
        if value is not None and value not in CHOICES:
            raise SandboxUnavailable(f"unknown {name} {value!r} (choose {', '.join(CHOICES)})")
    refused: list[str] = []
    if demanded == "auto":
        unsandboxed = [m for m in LADDER if not mode_named(m).sandboxed]
        candidates = automatic() + (unsandboxed if unsafe_no_sandbox else [])
    else:
        candidates = [demanded]
    mode = None
    for candidate in candidates:
        rung = check(candidate)
        if rung.ok:
            mode = candidate
            break
        refused.append(f"{candidate}: {rung.why if len(rung.why) <= 90 else rung.why[:87] + '...'}")
    if mode is None:
        hint = ("" if demanded != "auto" else
                " Run as root, allow unprivileged user namespaces, or pass --unsafe-no-sandbox for trusted code only.")
        raise SandboxUnavailable(f"this machine cannot isolate learner code as asked ({'; '.join(refused)}).{hint}")
    if minimum and minimum != "auto" and strength(mode, here=True) < strength(minimum, here=True):
        missing = ", ".join(not_enforced_here(mode)) or "it is lower on the ladder"
        raise SandboxUnavailable(
            f"isolation {mode} is weaker than {ENV_MINIMUM}={minimum} (it does not enforce: {missing})")
    note = ""
    if not mode_named(mode).sandboxed:
        note = "UNSAFE: learner code ran without isolation" + (f" ({'; '.join(refused)})" if refused else "")
    elif refused:
        note = "better modes unavailable: " + "; ".join(refused)
    return mode, note
