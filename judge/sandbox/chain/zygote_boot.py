"""The zygote's first step, before numpy: in mode full it starts joining its worker cgroup.

Joining a cgroup mostly waits for the kernel (a migration waits out an RCU grace
period: 10-20 ms here after an idle gap) rather than computing.  Started in a
thread first, the join overlaps the import of numpy and the sandbox code instead
of following it; the zygote takes the joined group (or the join's error) before
it says it is ready, so no run is ever forked outside the group.  Only mode full
does this: rootless must be single-threaded when it enters its user namespace.
"""

from __future__ import annotations

import sys

from judge.sandbox.chain.background import InBackground


def _join(name: str):  # noqa: ANN202 - join_worker_cgroup's pair; nothing imported for types before numpy
    from judge.sandbox.kernel.cgroups import join_worker_cgroup  # imported in the thread, beside numpy's import

    return join_worker_cgroup(name)


def boot() -> None:
    """``python -E -s -S -c BOOT PATH MODE NAME FD`` (see :mod:`judge.sandbox.chain.launch`)."""
    from judge.sandbox.modes import mode_named

    mode, name = sys.argv[1], sys.argv[2]
    early = mode_named(mode).joins_cgroup_early
    joining = InBackground(lambda: _join(name), "zygote-cgroup-join") if early else None
    from judge.sandbox.chain.zygote import main

    main(joining)
