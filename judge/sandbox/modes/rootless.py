"""Mode rootless: a normal user (an author's laptop, a CI runner).  The zygote makes itself root of a user
namespace of its own (:mod:`judge.sandbox.kernel.user_namespace`); each run gets the same namespaces and root as mode
full inside it, and its learner is uid 65534 of a nested one.  Memory, processes and CPU come from a cgroup v2
subtree systemd delegated to the user where there is one (:mod:`judge.sandbox.kernel.cgroups.delegation`), else from
rlimits and the supervisor's memory watch."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from judge.sandbox.modes.base import Mode, Rung

if TYPE_CHECKING:
    from judge.sandbox.boundary.contract import Hello


class RootlessMode(Mode):
    name = "rootless"
    namespaced = True
    automatic = True

    def check(self) -> Rung:
        if os.geteuid() == 0:  # the kernel exempts root's processes from RLIMIT_NPROC, whatever their namespace
            return Rung(self.name, False, "running as root: use full (RLIMIT_NPROC would not bind root's processes)")
        import judge.sandbox.kernel.linux  # noqa: F401 - imported before the probe's fork (see probes.user_namespace)
        import judge.sandbox.kernel.user_namespace  # noqa: F401
        from judge.sandbox.kernel.probes import in_child, user_namespace

        ok, why = in_child(user_namespace)
        if not ok:
            return Rung(self.name, False, f"user namespaces refused: {why}")
        from judge.sandbox.kernel.cgroups.delegation import find

        found = find()
        limits = f"limits: cgroup v2 delegated ({found.hier})" if found.ok else f"limits: rlimits ({found.describe()})"
        return Rung(self.name, True, f"unprivileged user namespace + pid/mount/network/ipc/uts namespaces; {limits}")

    def before_spawn(self) -> None:
        """Out of a delegated cgroup's root first, so that zygotes can have groups there."""
        from judge.sandbox.kernel.cgroups.delegation import claim

        claim()  # never raises; the zygote finds the outcome and says it in every verdict

    def isolation_fields(self, hello: Hello, last_uid: int | None) -> dict:
        from judge.sandbox.boundary.contract import NAMESPACES, SANDBOX_UID

        return {"namespaces": list(NAMESPACES), "uid": SANDBOX_UID, "cgroup": hello.cgroup}

    def remove_worker_group(self, name: str, hello: Hello | None, returncode: int | None) -> None:
        if hello is not None and hello.limits_by == "cgroup":
            from judge.sandbox.kernel.cgroups import remove_worker_cgroup
            from judge.sandbox.kernel.cgroups.delegation import find

            found = find()
            if found.ok:
                remove_worker_cgroup(name, found.mount)

    def start_zygote(self, zygote) -> None:
        from judge.sandbox.kernel.rootfs import RootPlan
        from judge.sandbox.kernel.user_namespace import enter_own_user_namespace

        _join_delegated_cgroup(zygote)  # before the user namespace: no capability is needed for it
        enter_own_user_namespace()
        zygote.policy.plan = RootPlan.for_this_interpreter()
        # With a delegated cgroup the limits are the kernel's, as in mode full; else rlimits + the watch.
        zygote.policy.memory_watch = zygote.policy.own_uid_count = zygote.cgroup is None

    def become(self, policy, limits) -> None:
        """The same new root as full, built with the capabilities of the zygote's unprivileged user namespace;
        then a nested user namespace where this process is uid 65534 (so RLIMIT_NPROC counts only the run's
        processes), every capability cleared, seccomp."""
        from judge.sandbox.boundary.contract import SANDBOX_UID
        from judge.sandbox.kernel import linux, lockdown
        from judge.sandbox.kernel.rootfs import enter_new_root

        lockdown.raise_oom_score()
        proc_self = os.open("/proc/self", os.O_RDONLY | os.O_DIRECTORY)  # /proc is gone after the root switch
        os.dup2(proc_self, 4)
        os.close(proc_self)
        lockdown.close_other_fds(keep=(0, 1, 2, 3, 4))
        enter_new_root(policy.plan)
        lockdown.clean_environment()
        lockdown.apply_rlimits(limits)
        linux.unshare(linux.CLONE_NEWUSER)
        try:
            linux.write_id_maps(4, SANDBOX_UID, 0, 0)
        finally:
            os.close(4)
        linux.drop_capabilities()
        lockdown.lock_down(policy.seccomp)


def _join_delegated_cgroup(zygote) -> None:
    """A worker group in the delegated cgroup v2 group the judge claimed, if any.

    The zygote stays in the host's mount namespace (only the supervisor leaves it), so it reaches
    /sys/fs/cgroup by path for every later move between leaves, from inside its user namespace too: the
    kernel checks write access to the common ancestor's cgroup.procs, which this uid owns.  Otherwise:
    rlimits, and a note saying why (the same line as ``judge doctor``)."""
    from judge.sandbox.kernel.cgroups import CgroupError, create_worker_cgroup, prune_stale_worker_cgroups
    from judge.sandbox.kernel.cgroups.delegation import find

    found = find()
    if not found.ok:
        zygote.notes.append(f"limits by rlimits: {found.describe()}")
        return
    group = None
    try:
        prune_stale_worker_cgroups(under=found.mount)
        group = create_worker_cgroup(zygote.name, under=found.mount)
        group.add_process(os.getpid())
        group.reset_peak()
    except CgroupError as exc:
        if group is not None and os.getpid() not in group._members():  # type: ignore[attr-defined]  # a CgroupV2: made under a v2 mount
            group.remove()
        zygote.notes.append(f"limits by rlimits: cgroup v2 delegation: {found.hier} could not be used ({exc})")
        return
    zygote.cgroup = group


MODE = RootlessMode()
