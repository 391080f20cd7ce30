"""What this machine lets the judge enforce, and the isolation mode it will therefore use.

Like isolate's environment check: each capability is probed for real (a
throw-away child tries the call), so `judge doctor` reports facts, not guesses.
"""

from __future__ import annotations

import os
from dataclasses import dataclass



@dataclass(frozen=True)
class Capability:
    name: str
    ok: bool
    detail: str


def _probe_in_child(action) -> tuple[bool, str]:
    """Run ``action`` in a forked child; (True, "") if it returned, else (False, why)."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            action()
            os._exit(0)
        except BaseException as exc:  # noqa: BLE001
            os.write(w, f"{type(exc).__name__}: {exc}".encode()[:500])
            os._exit(1)
    os.close(w)
    message = os.read(r, 600).decode(errors="replace")
    os.close(r)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status) == 0, message


def _unshare_all() -> None:
    from judge.sandbox import linux
    from judge.sandbox.contract import NAMESPACES

    linux.unshare(linux.namespace_flags(NAMESPACES))  # light imports: the child of a probe stays cheap


def _new_root() -> None:
    """The real root switch: private tmpfs root, read-only binds, pivot_root (Docker's default seccomp refuses it)."""
    import numpy  # noqa: F401 - the plan binds the packages the zygote has loaded

    from judge.sandbox import linux
    from judge.sandbox.rootfs import RootPlan, enter_new_root

    plan = RootPlan.for_this_interpreter()
    linux.unshare(linux.CLONE_NEWNS)
    enter_new_root(plan)
    if os.path.exists("/proc/self") or not os.path.isdir("/tmp"):
        raise RuntimeError("the new root does not look as planned")


def _uid_drop() -> None:
    from judge.sandbox.isolation import drop_privileges

    drop_privileges()


def _seccomp() -> None:
    from judge.sandbox import linux
    from judge.sandbox.seccomp import DenyListFilter

    f = DenyListFilter()
    linux.prctl(linux.PR_SET_NO_NEW_PRIVS, 1)
    f.load()


def probe() -> list[Capability]:
    from judge.sandbox.cgroups import detect

    caps = [Capability("root", os.geteuid() == 0, f"euid {os.geteuid()}")]
    ok, why = _probe_in_child(_unshare_all)
    caps.append(Capability("namespaces", ok, "pid, mount, network, ipc, uts" if ok else why))
    ok, why = _probe_in_child(_new_root)
    caps.append(Capability("new root", ok, "tmpfs root, read-only binds, pivot_root" if ok else why))
    support = detect()
    caps.append(Capability("cgroups", support.version is not None and support.writable,
                           f"v{support.version} {', '.join(support.controllers)}: {support.reason}"
                           if support.version else support.reason))
    if os.geteuid() != 0:  # mode rootless: kernel limits only in a cgroup v2 group delegated to this user
        from judge.sandbox.cgroups.delegation import find

        found = find()
        caps.append(Capability("cgroup deleg", found.ok, found.describe()))
    ok, why = _probe_in_child(_seccomp)
    caps.append(Capability("seccomp", ok, "libseccomp deny-list loads" if ok else why))
    ok, why = _probe_in_child(_uid_drop)
    caps.append(Capability("uid drop", ok, "setresuid(65534)" if ok else why))
    return caps


def choose_isolation(unsafe_no_sandbox: bool) -> tuple[str, str]:
    """The mode the judge uses by default here, and a note (see :func:`judge.sandbox.ladder.choose`)."""
    from judge.sandbox.ladder import choose

    return choose(None, unsafe_no_sandbox)
