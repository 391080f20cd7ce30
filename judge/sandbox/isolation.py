"""The steps that turn a freshly forked child into a sandbox, in the order they must run.

Called in the child that will run learner code, PID 1 of its own pid namespace,
already in new mount, network, IPC and UTS namespaces.  Order matters: mounts
need root; then rlimits; then the uid drop (which clears capabilities); then
no_new_privs and the seccomp filter, last, because it forbids ``mount``.
"""

from __future__ import annotations

import io
import os
import resource
import sys
from dataclasses import dataclass

from judge.sandbox import linux
from judge.sandbox.rootfs import RootPlan, enter_new_root
from judge.sandbox.seccomp import DenyListFilter

NOBODY_UID = 65534
NOBODY_GID = 65534
CHILD_ENV = {"PATH": "/usr/bin:/bin", "HOME": "/tmp", "LANG": "C.UTF-8", "TMPDIR": "/tmp"}


@dataclass(frozen=True)
class ChildLimits:
    cpu_seconds: float
    output_bytes: int  # RLIMIT_FSIZE: caps stdout/stderr files and anything written to /tmp
    open_files: int = 64


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


def drop_privileges() -> None:
    os.setgroups([])
    os.setresgid(NOBODY_GID, NOBODY_GID, NOBODY_GID)
    os.setresuid(NOBODY_UID, NOBODY_UID, NOBODY_UID)


def become_sandboxed(plan: RootPlan, limits: ChildLimits, seccomp: DenyListFilter) -> None:
    """Everything between fork and learner code for a fully isolated child."""
    with open("/proc/self/oom_score_adj", "w") as f:  # the child, never the zygote, is the OOM victim
        f.write("1000")
    close_other_fds(keep=(0, 1, 2, 3))  # 3: the setup-status pipe, closed once setup is done
    enter_new_root(plan)
    os.environ.clear()
    os.environ.update(CHILD_ENV)
    apply_rlimits(limits)
    drop_privileges()
    linux.prctl(linux.PR_SET_DUMPABLE, 0)
    linux.prctl(linux.PR_SET_NO_NEW_PRIVS, 1)
    seccomp.load()


def become_unsandboxed(limits: ChildLimits) -> None:
    """The --unsafe-no-sandbox path: a separate process with rlimits, nothing more."""
    close_other_fds(keep=(0, 1, 2, 3))
    os.environ.clear()
    os.environ.update(CHILD_ENV)
    apply_rlimits(limits)
