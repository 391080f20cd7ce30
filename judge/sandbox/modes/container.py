"""Mode container: one short-lived container per submission through a Docker engine
(:mod:`judge.sandbox.backends.container_client`), only when demanded (``--backend container``).  The engine gives the
namespaces, uid 65534, no capabilities, a read-only root, no network and the memory and pids limits; inside,
the container's init adds what every mode's runs get (:meth:`ContainerMode.become`)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from judge.sandbox.modes.base import Mode, Rung

if TYPE_CHECKING:
    from judge.sandbox.boundary.contract import Hello


class ContainerMode(Mode):
    name = "container"
    namespaced = True
    backend = "engine"

    def check(self) -> Rung:
        try:
            import docker

            client = docker.from_env(timeout=5)
            client.ping()
            client.close()
            return Rung(self.name, True, "a Docker engine answers")
        except Exception as exc:  # noqa: BLE001 - any failure means no usable engine
            return Rung(self.name, False, f"no Docker engine: {str(exc)[:120]}")

    def isolation_fields(self, hello: Hello, last_uid: int | None) -> dict:
        from judge.sandbox.boundary.contract import NAMESPACES, SANDBOX_UID

        return {"namespaces": list(NAMESPACES), "uid": SANDBOX_UID, "cgroup": None}

    def become(self, policy, limits, report_fd: int = 3) -> None:
        """In the container's init: the engine already gave the namespaces, uid 65534, no capabilities and a
        read-only root; add what the other modes' runs get: only the init's report descriptor kept, a clean
        environment, rlimits, no_new_privs, the judge's seccomp filter (stacked on the engine's profile)."""
        from judge.sandbox.kernel import lockdown

        lockdown.close_other_fds(keep=(0, 1, 2, report_fd))
        lockdown.clean_environment()
        os.chdir("/tmp")
        lockdown.apply_rlimits(limits)
        lockdown.lock_down(policy.seccomp)


MODE = ContainerMode()
