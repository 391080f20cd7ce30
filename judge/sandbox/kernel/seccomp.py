"""A seccomp deny-list loaded through libseccomp (ctypes), after no_new_privs.

The filter is defence in depth behind the namespaces: calls that open a way out
of the sandbox (sockets, ptrace, mounts, new namespaces, kernel keyrings, BPF,
io_uring, other processes' memory) fail with EPERM.  Everything else stays
allowed so numpy and the standard library run unchanged.
"""

from __future__ import annotations

import ctypes
import errno

from judge.sandbox.kernel.linux import load_library

SCMP_ACT_ALLOW = 0x7FFF0000
SCMP_CMP_MASKED_EQ = 7


def _act_errno(code: int) -> int:
    return 0x00050000 | (code & 0xFFFF)


DENIED_SYSCALLS: tuple[str, ...] = (
    "socket", "socketpair", "connect", "bind", "listen", "accept", "accept4",
    "ptrace", "process_vm_readv", "process_vm_writev", "process_madvise", "pidfd_getfd",
    "mount", "umount2", "pivot_root", "chroot", "move_mount", "open_tree", "fsopen",
    "fsmount", "fsconfig", "fspick", "mount_setattr",
    "unshare", "setns",
    "bpf", "perf_event_open", "userfaultfd",
    "io_uring_setup", "io_uring_enter", "io_uring_register",
    "keyctl", "add_key", "request_key",
    "init_module", "finit_module", "delete_module", "kexec_load", "kexec_file_load",
    "reboot", "swapon", "swapoff", "acct", "settimeofday", "clock_settime", "adjtimex",
    "sethostname", "setdomainname", "personality", "syslog", "quotactl",
    "open_by_handle_at", "name_to_handle_at", "lookup_dcookie", "vhangup",
    "iopl", "ioperm", "ustat", "sysfs", "uselib", "nfsservctl",
)

#: Memory a process can hold outside its resident set, so that no RSS watch sees it: System V shared memory (a
#: segment outlives its processes, detached or not), System V message queues and POSIX message queues (kernel
#: memory per queue).  Denied where no memory cgroup charges them (the rlimits modes); mode full, rootless with a
#: delegated cgroup and the container engine's runs are charged for them by the kernel instead, and their IPC
#: namespace ends with the run.
UNACCOUNTED_MEMORY_SYSCALLS: tuple[str, ...] = ("shmget", "shmat", "msgget", "msgsnd", "mq_open", "mq_timedsend")

# Namespace flags refused on clone(2); clone3 is refused with ENOSYS so libc falls back to clone.
_CLONE_NAMESPACE_FLAGS = (
    0x00020000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000,
)


class _ArgCmp(ctypes.Structure):
    _fields_ = [
        ("arg", ctypes.c_uint),
        ("op", ctypes.c_int),
        ("datum_a", ctypes.c_uint64),
        ("datum_b", ctypes.c_uint64),
    ]


class SeccompUnavailable(RuntimeError):
    """libseccomp cannot be loaded on this machine."""


class DenyListFilter:
    """A prepared filter: built in the zygote, loaded in each child with one call.

    Building needs libseccomp's name resolution (and may allocate); loading is a
    single prctl-backed call that is safe right before running learner code.
    """

    def __init__(self, also_deny: tuple[str, ...] = ()) -> None:
        """The deny-list, plus ``also_deny`` (e.g. :data:`UNACCOUNTED_MEMORY_SYSCALLS`)."""
        try:
            lib = load_library("libseccomp.so.2", "seccomp")
        except OSError as exc:
            raise SeccompUnavailable(f"libseccomp not found ({exc})") from exc
        lib.seccomp_init.restype = ctypes.c_void_p
        lib.seccomp_init.argtypes = [ctypes.c_uint32]
        lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
        lib.seccomp_rule_add_array.argtypes = [
            ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int, ctypes.c_uint, ctypes.POINTER(_ArgCmp)]
        lib.seccomp_load.argtypes = [ctypes.c_void_p]
        self._lib = lib
        self._ctx = lib.seccomp_init(SCMP_ACT_ALLOW)
        if not self._ctx:
            raise SeccompUnavailable("seccomp_init failed")
        self.denied: list[str] = []
        deny = _act_errno(errno.EPERM)
        for name in (*DENIED_SYSCALLS, *also_deny):
            if self._add(deny, name):
                self.denied.append(name)
        self._add(_act_errno(errno.ENOSYS), "clone3")
        for flag in _CLONE_NAMESPACE_FLAGS:
            cmp = (_ArgCmp * 1)(_ArgCmp(0, SCMP_CMP_MASKED_EQ, flag, flag))
            self._add(deny, "clone", cmp)

    def _add(self, action: int, name: str, cmps: ctypes.Array | None = None) -> bool:
        nr = self._lib.seccomp_syscall_resolve_name(name.encode())
        if nr < 0:
            return False  # not a syscall on this architecture
        rc = self._lib.seccomp_rule_add_array(self._ctx, action, nr, len(cmps) if cmps else 0, cmps)
        return rc == 0

    def load(self) -> None:
        """Install the filter on the calling thread (needs no_new_privs or CAP_SYS_ADMIN)."""
        rc = self._lib.seccomp_load(self._ctx)
        if rc != 0:
            raise OSError(-rc, "seccomp_load failed")
