"""Mode rootless: the zygote of a normal user makes itself root of a user namespace of its own.

Unprivileged user namespaces (``unshare -Ur``) give a process every capability
over namespaces it then creates, and none over the host: enough for the
supervisor to unshare the pid, mount, network, IPC and UTS namespaces and for
the init to build the same read-only root as mode full.  The zygote does this
once at start (it must still be single-threaded); every run inherits it.
"""

from __future__ import annotations

import os

from judge.sandbox.kernel import linux


def enter_own_user_namespace() -> None:
    """Become uid 0 of a new user namespace mapped to this process's own uid and gid."""
    uid, gid = os.geteuid(), os.getegid()
    linux.unshare(linux.CLONE_NEWUSER)
    proc_self = os.open("/proc/self", os.O_RDONLY | os.O_DIRECTORY)
    try:
        linux.write_id_maps(proc_self, 0, uid, gid)
    finally:
        os.close(proc_self)
