"""The steps that turn a freshly forked child into a sandbox, in the order they must run.

Called in the sandbox's init, which then forks the learner's process.  One
function per isolation mode (full, rootless, reduced, container, none).  Order matters:
mounts need privilege; then rlimits; then the uid drop (which clears
capabilities); then no_new_privs and the seccomp filter, last, because it
forbids ``mount`` and ``unshare``.
"""

from __future__ import annotations

import io
import os
import resource
import sys
from dataclasses import dataclass, replace

from judge.sandbox import linux
from judge.sandbox.contract import SANDBOX_UID
from judge.sandbox.rootfs import RootPlan, enter_new_root
from judge.sandbox.seccomp import DenyListFilter

NOBODY_UID = NOBODY_GID = SANDBOX_UID
CHILD_ENV = {"PATH": "/usr/bin:/bin", "HOME": "/tmp", "LANG": "C.UTF-8", "TMPDIR": "/tmp"}


@dataclass(frozen=True)
class ChildLimits:
    cpu_seconds: float
    output_bytes: int  # RLIMIT_FSIZE: caps stdout/stderr files and anything written to /tmp
    open_files: int = 64
    address_space: int | None = None  # RLIMIT_AS, the rlimits modes' memory backstop
    processes: int | None = None  # RLIMIT_NPROC, where the uid (or user namespace) is the run's own


def redirect_output(stdout_fd: int, stderr_fd: int) -> None:
    """Point fds 1 and 2 at the capture files and rebuild sys.stdout/stderr over them."""
    os.dup2(stdout_fd, 1)
    os.dup2(stderr_fd, 2)
    sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), encoding="utf-8",
                                  errors="backslashreplace", line_buffering=True)
    sys.stderr = io.TextIOWrapper(io.FileIO(2, "w", closefd=False), encoding="utf-8",
                                  errors="backslashreplace", line_buffering=True)
    sys.stdin = io.TextIOWrapper(io.FileIO(os.open(os.devnull, os.O_RDONLY), "r"), encoding="utf-8")


def close_other_fds(keep: tuple[int, ...] = (0, 1, 2)) -> None:
    """Close every inherited descriptor not in ``keep`` (sockets to the judge above all)."""
    for fd_name in os.listdir("/proc/self/fd"):
        fd = int(fd_name)
        if fd not in keep:
            try:
                os.close(fd)
            except OSError:
                pass


def apply_rlimits(limits: ChildLimits) -> None:
    cpu = max(1, int(limits.cpu_seconds + 0.999))
    # SIGXCPU at the soft limit is the kernel's own record of a CPU overrun; a learner that
    # ignores it meets SIGKILL one second later at the hard limit.
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    resource.setrlimit(resource.RLIMIT_FSIZE, (limits.output_bytes, limits.output_bytes))
    resource.setrlimit(resource.RLIMIT_NOFILE, (limits.open_files, limits.open_files))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if limits.address_space is not None:
        resource.setrlimit(resource.RLIMIT_AS, (limits.address_space, limits.address_space))
    if limits.processes is not None:
        resource.setrlimit(resource.RLIMIT_NPROC, (limits.processes, limits.processes))


def drop_privileges(uid: int = SANDBOX_UID) -> None:
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)


def _raise_oom_score() -> None:
    with open("/proc/self/oom_score_adj", "w") as f:  # the child, never the zygote, is the OOM victim
        f.write("1000")


def _clean_environment(**extra: str) -> None:
    """Nothing of the judge's environment reaches learner code: CHILD_ENV (and ``extra``) only."""
    os.environ.clear()
    os.environ.update(CHILD_ENV, **extra)


def _lock_down(seccomp: DenyListFilter) -> None:
    linux.prctl(linux.PR_SET_DUMPABLE, 0)
    linux.prctl(linux.PR_SET_NO_NEW_PRIVS, 1)
    seccomp.load()


def become_sandboxed(plan: RootPlan, limits: ChildLimits, seccomp: DenyListFilter) -> None:
    """Everything between fork and learner code for a fully isolated child (mode full)."""
    _raise_oom_score()
    close_other_fds(keep=(0, 1, 2, 3))  # 3: the setup-status pipe, closed once setup is done
    enter_new_root(plan)
    _clean_environment()
    apply_rlimits(limits)
    drop_privileges()
    _lock_down(seccomp)


def become_rootless(plan: RootPlan, limits: ChildLimits, seccomp: DenyListFilter) -> None:
    """Mode rootless: the same new root as full, built with the capabilities of the zygote's
    unprivileged user namespace; then a nested user namespace where this process is uid 65534
    (so RLIMIT_NPROC counts only the run's processes), every capability cleared, seccomp."""
    _raise_oom_score()
    proc_self = os.open("/proc/self", os.O_RDONLY | os.O_DIRECTORY)  # /proc is gone after the root switch
    os.dup2(proc_self, 4)
    os.close(proc_self)
    close_other_fds(keep=(0, 1, 2, 3, 4))
    enter_new_root(plan)
    _clean_environment()
    apply_rlimits(limits)
    linux.unshare(linux.CLONE_NEWUSER)
    try:
        linux.write_id_maps(4, SANDBOX_UID, 0, 0)
    finally:
        os.close(4)
    linux.drop_capabilities()
    _lock_down(seccomp)


def become_reduced(workdir: str, limits: ChildLimits, seccomp: DenyListFilter, landlock_abi: int = 0,
                   landlock_rules: list | None = None) -> None:
    """Mode reduced (root in a container that refuses namespaces), the init's part: no new root, the run's
    private working folder, Landlock confining files to mode full's view plus that folder (where the kernel
    allows it), rlimits, no_new_privs, seccomp.  The init keeps its uid: with no pid namespace, a process of
    the run's uid could otherwise kill it (kill(-1, SIGKILL)) and cut its own run short; the learner's process
    takes the run's uid right after the fork (:func:`become_reduced_learner`).  This init is a subreaper, so
    every process the learner starts stays below it where the supervisor's memory watch finds it."""
    rules = landlock_rules or []
    _raise_oom_score()
    close_other_fds(keep=(0, 1, 2, 3, *(fd for fd, _ in rules)))
    _clean_environment(HOME=workdir, TMPDIR=workdir)
    os.chdir(workdir)
    linux.prctl(linux.PR_SET_CHILD_SUBREAPER, 1)
    if landlock_abi:
        from judge.sandbox import landlock

        linux.prctl(linux.PR_SET_NO_NEW_PRIVS, 1)  # what Landlock needs from a process without CAP_SYS_ADMIN
        landlock.restrict_self(landlock_abi, rules, workdir)
        for fd, _ in rules:
            os.close(fd)
    apply_rlimits(replace(limits, processes=None))  # RLIMIT_NPROC counts the uid that forks: the learner's
    _lock_down(seccomp)


def become_reduced_learner(uid: int, limits: ChildLimits) -> None:
    """Mode reduced, in the learner's process right after the fork: its process limit, then the run's uid."""
    if limits.processes is not None:
        resource.setrlimit(resource.RLIMIT_NPROC, (limits.processes, limits.processes))
    drop_privileges(uid)


def become_contained(limits: ChildLimits, seccomp: DenyListFilter, report_fd: int) -> None:
    """Mode container, in the container's init: the engine already gave the namespaces, uid 65534,
    no capabilities and a read-only root; add what the other modes' runs get: only the init's
    report descriptor kept, a clean environment, rlimits, no_new_privs, the judge's seccomp filter
    (stacked on the engine's profile)."""
    close_other_fds(keep=(0, 1, 2, report_fd))
    _clean_environment()
    os.chdir("/tmp")
    apply_rlimits(limits)
    _lock_down(seccomp)


def become_unsandboxed(limits: ChildLimits) -> None:
    """The --unsafe-no-sandbox path: a separate process with rlimits, nothing more."""
    close_other_fds(keep=(0, 1, 2, 3))
    _clean_environment()
    apply_rlimits(limits)
    linux.prctl(linux.PR_SET_CHILD_SUBREAPER, 1)
