"""Thin ctypes bindings to the Linux calls the sandbox needs and Python 3.11 lacks.

Python 3.11 has no ``os.unshare``, ``mount`` or ``pivot_root``; libc has them.
Everything here is loaded once in the zygote, before any fork, so an isolated
child never has to ``dlopen`` anything after its root has been replaced.
"""

from __future__ import annotations

import ctypes
import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable

CLONE_NEWNS = 0x00020000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
CLONE_NEWCGROUP = 0x02000000

MS_RDONLY = 1
MS_NOSUID = 2
MS_NODEV = 4
MS_NOEXEC = 8
MS_REMOUNT = 32
MS_BIND = 4096
MS_REC = 16384
MS_PRIVATE = 1 << 18
MNT_DETACH = 2

PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_SET_CHILD_SUBREAPER = 36
PR_SET_NO_NEW_PRIVS = 38
PR_SET_THP_DISABLE = 41

#: the namespaces of NAMESPACES in judge.sandbox.boundary.contract, as clone(2) flags
NAMESPACE_FLAGS = {"pid": CLONE_NEWPID, "mount": CLONE_NEWNS, "network": CLONE_NEWNET, "ipc": CLONE_NEWIPC,
                   "uts": CLONE_NEWUTS}


def namespace_flags(names: Iterable[str]) -> int:
    """The clone(2) flags of the named namespaces, or-ed together."""
    flags = 0
    for name in names:
        flags |= NAMESPACE_FLAGS[name]
    return flags

SYS_pivot_root = 155  # x86_64
SYS_pidfd_open = 434


def load_library(soname: str, name: str) -> ctypes.CDLL:
    """A C library by its usual soname (e.g. glibc's libc.so.6); else whatever ``ctypes.util.find_library(name)``
    finds (musl, other layouts).  ctypes.util is imported only then: it brings subprocess and shutil, ~5 ms of
    every zygote's start.  Raises OSError when neither loads."""
    try:
        return ctypes.CDLL(soname, use_errno=True)
    except OSError:
        from ctypes.util import find_library

        return ctypes.CDLL(find_library(name) or soname, use_errno=True)


_libc = load_library("libc.so.6", "c")
_libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]
_libc.umount2.argtypes = [ctypes.c_char_p, ctypes.c_int]
_libc.unshare.argtypes = [ctypes.c_int]
_libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
_libc.syscall.restype = ctypes.c_long
_libc.memcmp.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t]
_libc.memcmp.restype = ctypes.c_int


def _check(result: int, what: str) -> int:
    if result < 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")
    return result


def unshare(flags: int) -> None:
    """Move the calling process into new namespaces (see unshare(2))."""
    _check(_libc.unshare(flags), "unshare")


def mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    """mount(2); strings are encoded with the filesystem encoding."""
    enc = os.fsencode
    _check(
        _libc.mount(
            enc(source) if source else None,
            enc(target),
            enc(fstype) if fstype else None,
            flags,
            enc(data) if data else None,
        ),
        f"mount {target}",
    )


def umount(target: str, flags: int = 0) -> None:
    _check(_libc.umount2(os.fsencode(target), flags), f"umount {target}")


def pivot_root(new_root: str, put_old: str) -> None:
    _check(_libc.syscall(SYS_pivot_root, os.fsencode(new_root), os.fsencode(put_old)), "pivot_root")


def prctl(option: int, arg2: int = 0) -> None:
    _check(_libc.prctl(option, arg2, 0, 0, 0), f"prctl({option})")


def pidfd_open(pid: int) -> int:
    return os.pidfd_open(pid)


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


def drop_capabilities() -> None:
    """Clear every capability of the calling thread (capset(2) with empty sets, version 3)."""
    header = _CapHeader(0x20080522, 0)
    data = (_CapData * 2)()
    _check(_libc.capset(ctypes.byref(header), data), "capset")


def write_id_maps(proc_dir_fd: int, inside: int, uid_outside: int, gid_outside: int) -> None:
    """Map uid and gid ``inside`` of a fresh user namespace to the caller's ids outside it.

    ``proc_dir_fd`` is an open ``/proc/self`` (the caller may already have left the /proc it
    could see); setgroups is denied first, as unprivileged gid maps require."""
    for name, text in (("setgroups", "deny"), ("uid_map", f"{inside} {uid_outside} 1"),
                       ("gid_map", f"{inside} {gid_outside} 1")):
        fd = os.open(name, os.O_WRONLY, dir_fd=proc_dir_fd)
        try:
            os.write(fd, text.encode())
        finally:
            os.close(fd)


def memcmp_equal(addr_a: int, addr_b: int, size: int) -> bool:
    """Compare two memory ranges at C speed (memoryview == memoryview is item-wise, ~30x slower)."""
    return _libc.memcmp(addr_a, addr_b, size) == 0
