"""The isolation modes, one class a room: what each checks, how its zygote starts, how a run becomes isolated in
it, what it leaves to clean up, and how a verdict describes it.

========== ===================================================================================================
full       root on the host: namespaces, a tmpfs root, seccomp, uid 65534, cgroup limits (:mod:`.full`)
rootless   a normal user: the same inside an unprivileged user namespace; cgroup v2 limits where delegated,
           else rlimits + the supervisor's memory watch (:mod:`.rootless`)
reduced    root in a container that refuses namespaces: a uid of its own, Landlock where allowed, seccomp,
           rlimits, a clean-up of everything the uid left (:mod:`.reduced`)
container  one Docker container per submission (:mod:`.container`)
none       a separate process with rlimits: trusted code only (:mod:`.none`)
========== ===================================================================================================

Every mode implements :class:`~judge.sandbox.modes.base.Mode`; the rest of the judge asks :func:`mode_named`
and calls the mode's methods, never compares the mode's name.  Adding a mode is one module here, a column of
the guarantee table (:mod:`judge.sandbox.modes.guarantees`) and its place on :data:`LADDER`.  Each module imports
only what its own methods need, lazily where a zygote's start-up would pay for it: the zygote imports the one
mode it serves.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from judge.sandbox.boundary.contract import LADDER

if TYPE_CHECKING:
    from judge.sandbox.modes.base import Mode

_made: dict[str, Mode] = {}


def mode_named(name: str) -> Mode:
    """The mode called ``name`` (one of :data:`LADDER`); raises KeyError for any other name."""
    if name not in LADDER:
        raise KeyError(name)
    if name not in _made:
        _made[name] = importlib.import_module(f"judge.sandbox.modes.{name}").MODE
    return _made[name]


def automatic() -> list[str]:
    """The modes the ladder tries, best first, when none is demanded."""
    return [name for name in LADDER if mode_named(name).automatic]


__all__ = ["LADDER", "automatic", "mode_named"]
