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
import threading


class CgroupJoin:
    """Creates the worker group ``name``, moves this process into it and restarts its peak, in a thread."""

    def __init__(self, name: str) -> None:
        self._group = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._join, args=(name,), name="zygote-cgroup-join", daemon=True)
        self._thread.start()

    def _join(self, name: str) -> None:
        try:
            from judge.sandbox.cgroups import create_worker_cgroup, prune_stale_worker_cgroups

            prune_stale_worker_cgroups()  # groups of judges that were killed before they could clean up
            group = create_worker_cgroup(name)
            group.add_process(os.getpid())  # cgroup.procs: the whole process, every thread of it
            group.reset_peak()  # a reused v1 group keeps its old watermark; right after joining this is cheap
            self._group = group
        except BaseException as exc:  # noqa: BLE001 - raised again by result(), in the zygote's start-up
            self._error = exc

    def result(self):
        """The joined group (a :class:`judge.sandbox.cgroups.interface.Cgroup`); raises what the join raised."""
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._group


def boot() -> None:
    """``python -E -s -S -c BOOT PATH MODE NAME FD`` (see :mod:`judge.sandbox.client`)."""
    joining = CgroupJoin(sys.argv[2]) if sys.argv[1] == "full" else None
    from judge.sandbox.zygote import main

    main(joining)
