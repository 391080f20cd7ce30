"""Real attempts in throw-away children: what the modes' checks and ``judge doctor`` rest on.

Like isolate's environment check, each capability is tried for real (a forked child makes the call and
exits), so the ladder and the doctor report facts, not guesses.  The probes import only light modules:
the child of a probe stays cheap, and a probe that needs a single-threaded process (a user namespace)
must not bring in numpy's threads.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable


def in_child(action: Callable[[], object]) -> tuple[bool, str]:
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


def unshare_all() -> None:
    """The namespaces of mode full's runs."""
    from judge.sandbox.boundary.contract import NAMESPACES
    from judge.sandbox.kernel import linux

    linux.unshare(linux.namespace_flags(NAMESPACES))


def new_root() -> None:
    """The real root switch: private tmpfs root, read-only binds, pivot_root (Docker's default seccomp refuses it)."""
    import numpy  # noqa: F401 - the plan binds the packages the zygote has loaded

    from judge.sandbox.kernel import linux
    from judge.sandbox.kernel.rootfs import RootPlan, enter_new_root

    plan = RootPlan.for_this_interpreter()
    linux.unshare(linux.CLONE_NEWNS)
    enter_new_root(plan)
    if os.path.exists("/proc/self") or not os.path.isdir("/tmp"):
        raise RuntimeError("the new root does not look as planned")


def uid_drop() -> None:
    from judge.sandbox.kernel.lockdown import drop_privileges

    drop_privileges()


def seccomp() -> None:
    from judge.sandbox.kernel import linux
    from judge.sandbox.kernel.seccomp import DenyListFilter

    f = DenyListFilter()
    linux.prctl(linux.PR_SET_NO_NEW_PRIVS, 1)
    f.load()


def user_namespace() -> None:
    """Mode rootless's start: a user namespace of one's own, then the runs' namespaces inside it.  The caller
    imports :mod:`judge.sandbox.kernel.linux` and :mod:`judge.sandbox.kernel.user_namespace` before the fork (an
    import in the child could start threads, and a multithreaded process may not unshare a user namespace)."""
    from judge.sandbox.boundary.contract import NAMESPACES
    from judge.sandbox.kernel import linux
    from judge.sandbox.kernel.user_namespace import enter_own_user_namespace

    enter_own_user_namespace()
    linux.unshare(linux.namespace_flags(NAMESPACES))


def readable_python_as_other_uid() -> None:
    """Mode reduced's start: an unprivileged uid, no_new_privs and the seccomp filter, and the Python
    installation still readable (no new root: learner code imports from the judge's own installation)."""
    import importlib.util
    import sysconfig

    from judge.sandbox.kernel import linux
    from judge.sandbox.kernel.lockdown import drop_privileges
    from judge.sandbox.kernel.seccomp import DenyListFilter

    numpy_spec = importlib.util.find_spec("numpy")  # found, not imported: ~0.2 s saved
    numpy_dir = os.path.dirname(numpy_spec.origin)  # type: ignore[union-attr,arg-type]  # the judge runs on numpy
    # Asked before the uid drop: sysconfig imports its platform module lazily, and an unreadable installation
    # would then fail with that ModuleNotFoundError instead of the reason below.
    stdlib_dir = sysconfig.get_paths()["stdlib"]
    f = DenyListFilter()
    drop_privileges()
    linux.prctl(linux.PR_SET_NO_NEW_PRIVS, 1)
    f.load()
    for folder in (stdlib_dir, numpy_dir):
        try:
            os.listdir(folder)
        except OSError as exc:
            raise RuntimeError(f"the Python installation is not readable by an unprivileged uid ({folder}: "
                               f"{exc.strerror}); install Python where others can read it, as images do") from None
