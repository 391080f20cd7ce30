"""Mode full: root on a host.  Each run gets pid, mount, network, IPC and UTS namespaces, a tmpfs root holding
read-only binds of /usr, the standard library and numpy, uid 65534, rlimits, no_new_privs and the seccomp
deny-list; the zygote sits in a worker cgroup (v1 or v2) whose counters decide memory, process and CPU
verdicts."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from judge.sandbox.modes.base import Mode, Rung

if TYPE_CHECKING:
    from judge.sandbox.boundary.contract import Hello


class FullMode(Mode):
    name = "full"
    namespaced = True
    automatic = True
    joins_cgroup_early = True

    def check(self) -> Rung:
        if os.geteuid() != 0:
            return Rung(self.name, False, "not running as root")
        from judge.sandbox.kernel.cgroups import detect
        from judge.sandbox.kernel.probes import in_child, unshare_all

        support = detect()
        if support.version is None or not support.writable:
            return Rung(self.name, False, f"cgroups unusable: {support.reason}")
        ok, why = in_child(unshare_all)
        return Rung(self.name, ok, f"namespaces, cgroup v{support.version}" if ok else f"namespaces refused: {why}")

    def isolation_fields(self, hello: Hello, last_uid: int | None) -> dict:
        from judge.sandbox.boundary.contract import NAMESPACES, SANDBOX_UID

        return {"namespaces": list(NAMESPACES), "uid": SANDBOX_UID, "cgroup": hello.cgroup}

    def remove_worker_group(self, name: str, hello: Hello | None, returncode: int | None) -> None:
        if returncode != 0:  # 0: the zygote left and removed its group itself
            from judge.sandbox.kernel.cgroups import remove_worker_cgroup

            remove_worker_cgroup(name)

    def start_zygote(self, zygote) -> None:
        from judge.sandbox.kernel.cgroups import join_worker_cgroup
        from judge.sandbox.kernel.rootfs import RootPlan

        zygote.policy.plan = RootPlan.for_this_interpreter()
        # begun before numpy's import (zygote_boot), or now
        zygote.cgroup, zygote.cgroup_home = zygote.joining.result() if zygote.joining else \
            join_worker_cgroup(zygote.name)
        try:  # needs CAP_SYS_RESOURCE; children raise theirs to 1000 regardless
            with open("/proc/self/oom_score_adj", "w") as f:
                f.write("-1000")
        except OSError:
            zygote.notes.append("could not lower the zygote's oom_score_adj (no CAP_SYS_RESOURCE)")

    def become(self, policy, limits) -> None:
        """Everything between fork and learner code for a fully isolated child."""
        from judge.sandbox.kernel import lockdown
        from judge.sandbox.kernel.rootfs import enter_new_root

        lockdown.raise_oom_score()
        lockdown.close_other_fds(keep=(0, 1, 2, 3))  # 3: the setup-status pipe, closed once setup is done
        enter_new_root(policy.plan)
        lockdown.clean_environment()
        lockdown.apply_rlimits(limits)
        lockdown.drop_privileges()
        lockdown.lock_down(policy.seccomp)


MODE = FullMode()
