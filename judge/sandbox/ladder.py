"""The isolation ladder: which mode this machine can give, chosen best first, or demanded.

=========  ==========================================================================
full       root on the host: namespaces, tmpfs root, seccomp, uid 65534, cgroup limits
rootless   a normal user: the same namespaces inside an unprivileged user namespace,
           seccomp, no_new_privs; cgroup v2 limits in a delegated subtree where the user has
           one (cgroups.delegation), else rlimits + the supervisor's memory watch
reduced    root in a container that refuses namespaces and cgroup writes: a uid of its
           own, no_new_privs, seccomp, rlimits, the supervisor's clock and memory watch
container  one Docker container per submission (only when demanded)
none       no isolation (only when demanded: ``--unsafe-no-sandbox`` / ``--isolation none``)
=========  ==========================================================================

A mode is demanded with ``--isolation MODE`` or ``JUDGE_ISOLATION``; ``auto`` (the
default) takes the first of full, rootless, reduced the machine can give.
``JUDGE_MIN_ISOLATION`` refuses any mode that enforces fewer rows of the
guarantee table (:mod:`judge.sandbox.guarantees`) than the named one.  Each
check is a real attempt in a throw-away child, like isolate's environment check.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from judge.errors import SandboxUnavailable
from judge.sandbox import guarantees
from judge.sandbox.contract import LADDER
from judge.sandbox.launch import ENV_MODE  # defined where a cold start's launch reads it, before this module

ENV_MINIMUM = "JUDGE_MIN_ISOLATION"
AUTO_MODES = ("full", "rootless", "reduced")
CHOICES = ("auto", *LADDER)


@dataclass(frozen=True)
class Rung:
    mode: str
    ok: bool
    why: str  #: what it rests on, or why this machine cannot give it


def _in_child(action) -> tuple[bool, str]:
    from judge.sandbox.capabilities import _probe_in_child

    return _probe_in_child(action)


def _rootless_probe() -> None:
    # Imported by check() before the fork: an import here (numpy's BLAS) could start threads, and a
    # multithreaded process may not unshare a user namespace.  The probe needs only the light modules
    # (linux, rootless): the supervisor would bring numpy into the judge's start-up.
    from judge.sandbox import linux
    from judge.sandbox.contract import NAMESPACES
    from judge.sandbox.rootless import enter_own_user_namespace

    enter_own_user_namespace()
    linux.unshare(linux.namespace_flags(NAMESPACES))


def _reduced_probe() -> None:
    import importlib.util
    import sysconfig

    from judge.sandbox import linux
    from judge.sandbox.isolation import drop_privileges
    from judge.sandbox.seccomp import DenyListFilter

    numpy_dir = os.path.dirname(importlib.util.find_spec("numpy").origin)  # found, not imported: ~0.2 s saved
    # Asked before the uid drop: sysconfig imports its platform module lazily, and an unreadable installation
    # would then fail with that ModuleNotFoundError instead of the reason below.
    stdlib_dir = sysconfig.get_paths()["stdlib"]
    f = DenyListFilter()
    drop_privileges()
    linux.prctl(linux.PR_SET_NO_NEW_PRIVS, 1)
    f.load()
    for folder in (stdlib_dir, numpy_dir):
        try:  # no new root in this mode: learner code imports from the judge's own Python installation
            os.listdir(folder)
        except OSError as exc:
            raise RuntimeError(f"the Python installation is not readable by an unprivileged uid ({folder}: "
                               f"{exc.strerror}); install Python where others can read it, as images do") from None


def check(mode: str) -> Rung:
    """Whether this machine can give ``mode`` now, and why (not)."""
    if mode == "full":
        if os.geteuid() != 0:
            return Rung(mode, False, "not running as root")
        from judge.sandbox.cgroups import detect

        support = detect()
        if support.version is None or not support.writable:
            return Rung(mode, False, f"cgroups unusable: {support.reason}")
        ok, why = _in_child(__import__("judge.sandbox.capabilities", fromlist=["_unshare_all"])._unshare_all)
        return Rung(mode, ok, f"namespaces, cgroup v{support.version}" if ok else f"namespaces refused: {why}")
    if mode == "rootless":
        if os.geteuid() == 0:  # the kernel exempts root's processes from RLIMIT_NPROC, whatever their namespace
            return Rung(mode, False, "running as root: use full (RLIMIT_NPROC would not bind root's processes)")
        import judge.sandbox.linux  # noqa: F401 - see _rootless_probe
        import judge.sandbox.rootless  # noqa: F401

        ok, why = _in_child(_rootless_probe)
        if not ok:
            return Rung(mode, False, f"user namespaces refused: {why}")
        from judge.sandbox.cgroups.delegation import find

        found = find()
        limits = f"limits: cgroup v2 delegated ({found.hier})" if found.ok else f"limits: rlimits ({found.describe()})"
        return Rung(mode, True, f"unprivileged user namespace + pid/mount/network/ipc/uts namespaces; {limits}")
    if mode == "reduced":
        if os.geteuid() != 0:
            return Rung(mode, False, "needs root (in a container) to change to the sandbox uid")
        ok, why = _in_child(_reduced_probe)
        return Rung(mode, ok, "uid change, no_new_privs, seccomp filter" if ok else why)
    if mode == "container":
        try:
            import docker

            client = docker.from_env(timeout=5)
            client.ping()
            client.close()
            return Rung(mode, True, "a Docker engine answers")
        except Exception as exc:  # noqa: BLE001 - any failure means no usable engine
            return Rung(mode, False, f"no Docker engine: {str(exc)[:120]}")
    if mode == "none":
        return Rung(mode, True, "always (unsafe: only for trusted code)")
    raise SandboxUnavailable(f"unknown isolation mode {mode!r} (choose {', '.join(CHOICES)})")


def ladder() -> list[Rung]:
    """Every mode, best first, with whether this machine can give it (for ``judge doctor``)."""
    return [check(m) for m in LADDER]


def landlock_here() -> bool:
    """Whether a mode reduced run here would be confined by Landlock (see judge.sandbox.landlock)."""
    from judge.sandbox.landlock import abi_version

    return abi_version() > 0


def not_enforced_here(mode: str) -> list[str]:
    """The rows ``mode`` would not enforce on this machine (mode reduced: with or without Landlock)."""
    return guarantees.not_enforced(mode, landlock=landlock_here() if mode == "reduced" else True)


#: Modes whose runs get kernel namespaces of their own (a mount, pid and network namespace at least).
NAMESPACED = ("full", "rootless", "container")


def strength(mode: str, here: bool = False) -> tuple[int, int]:
    """How strong ``mode`` is: the rows it enforces (on this machine when ``here``), then whether its runs have
    namespaces of their own (mode reduced confined by Landlock enforces every row, yet is weaker than full)."""
    missing = not_enforced_here(mode) if here else guarantees.not_enforced(mode)
    return len(guarantees.ROWS) - len(missing), int(mode in NAMESPACED)


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
        candidates = list(AUTO_MODES) + (["none"] if unsafe_no_sandbox else [])
    else:
        candidates = [demanded]
    mode = None
    for candidate in candidates:
        rung = check(candidate) if candidate != "none" else Rung("none", True, "")
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
    if mode == "none":
        note = "UNSAFE: learner code ran without isolation" + (f" ({'; '.join(refused)})" if refused else "")
    elif refused:
        note = "better modes unavailable: " + "; ".join(refused)
    return mode, note
