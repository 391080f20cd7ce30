"""The zygote's first step, before numpy: in mode full it starts joining its worker cgroup.

Joining a cgroup mostly waits for the kernel (a migration waits out an RCU grace
period: 10-20 ms here after an idle gap) rather than computing.  Started in a
thread first, the join overlaps the import of numpy and the sandbox code instead
of following it; the zygote takes the joined group (or the join's error) before
it says it is ready, so no run is ever forked outside the group.  Only mode full
does this: rootless must be single-threaded when it enters its user namespace.
"""

from __future__ import annotations

import os
import sys

from judge.background import InBackground


def join_worker_cgroup(name: str):
    """Create the worker group ``name``, move this process into it, restart its peak: the group (a
    :class:`judge.sandbox.cgroups.interface.WorkerCgroup`) and where this process was before (the text of
    /proc/self/cgroup), for :meth:`~judge.sandbox.cgroups.interface.WorkerCgroup.return_home`."""
    from judge.sandbox.cgroups import create_worker_cgroup, prune_stale_worker_cgroups

    with open("/proc/self/cgroup", encoding="utf-8", errors="replace") as f:
        home = f.read()
    prune_stale_worker_cgroups()  # groups of judges that were killed before they could clean up
    group = create_worker_cgroup(name)
    group.add_process(os.getpid())  # cgroup.procs: the whole process, every thread of it
    group.reset_peak()  # a reused v1 group keeps its old watermark; right after joining this is cheap
    return group, home


def boot() -> None:
    """``python -E -s -S -c BOOT PATH MODE NAME FD`` (see :mod:`judge.sandbox.launch`)."""
    mode, name = sys.argv[1], sys.argv[2]
    joining = InBackground(lambda: join_worker_cgroup(name), "zygote-cgroup-join") if mode == "full" else None
    from judge.sandbox.zygote import main

    main(joining)
