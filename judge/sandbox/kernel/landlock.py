"""Landlock: the file system view of a run where no mount namespace can be made (mode reduced).

Landlock (Linux 5.13+) lets an unprivileged process restrict, for itself and
every process it starts, which files it may read, write, create or execute,
by path, irreversibly.  It needs no capability (only no_new_privs), and
container engines allow it in their default seccomp profiles (moby since
2022, containerd, podman).  So in a grader container that refuses
namespaces, the run's init restricts itself to what mode full's tmpfs root
holds -- /usr, the standard library, numpy, four devices -- plus its private
working folder, before it forks the learner's process.  The bundle, the
judge's cache, a git checkout, the judge's source tree, /proc, another
uid's leftovers: none of them can be opened, whatever their permissions.

Newer ABIs add rights that are handled too when the kernel knows them
(``refer``, ``truncate``, device ioctls), deny TCP bind/connect (ABI 4; the
seccomp filter already denies sockets) and scope signals and abstract Unix
sockets to the run (ABI 6).  Where the kernel or the container's seccomp
profile refuses Landlock, :func:`abi_version` says 0 and the mode says so in
every verdict; the run then relies on the uid, the ACLs and the clean-up
(:mod:`judge.sandbox.kernel.leftovers`).
"""

from __future__ import annotations

import ctypes
import errno
import os
import stat
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from judge.sandbox.kernel import linux

if TYPE_CHECKING:
    from judge.sandbox.kernel.rootfs import RootPlan

# x86_64 and the generic table (aarch64, riscv64) agree on these numbers.
_SYS_CREATE_RULESET, _SYS_ADD_RULE, _SYS_RESTRICT_SELF = 444, 445, 446
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1

EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
REFER, TRUNCATE, IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15
#: Rights that exist on files (others are only meaningful beneath a folder; the kernel refuses them on files).
FILE_RIGHTS = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV
READ_ONLY = EXECUTE | READ_FILE | READ_DIR
NET_BIND_TCP, NET_CONNECT_TCP = 1 << 0, 1 << 1
SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL = 1 << 0, 1 << 1


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


_libc = linux.load_library("libc.so.6", "c")
_libc.syscall.restype = ctypes.c_long


def abi_version() -> int:
    """The kernel's Landlock ABI (1 for Linux 5.13 ...), or 0 where it is missing, disabled at boot, or refused
    by a seccomp profile (a container engine older than 2022 answers EPERM)."""
    result = _libc.syscall(ctypes.c_long(_SYS_CREATE_RULESET), None, ctypes.c_size_t(0),
                           ctypes.c_uint32(_CREATE_RULESET_VERSION))
    return max(0, int(result))


def handled_fs(abi: int) -> int:
    """Every file system right the ABI knows: what is not allowed by a rule is denied."""
    rights = (1 << 13) - 1  # ABI 1: execute ... make_sym
    if abi >= 2:
        rights |= REFER
    if abi >= 3:
        rights |= TRUNCATE
    if abi >= 5:
        rights |= IOCTL_DEV
    return rights


@dataclass(frozen=True)
class Rule:
    path: str
    access: int


@dataclass
class FileView:
    """What a run may reach, computed once in the zygote (:meth:`for_root_plan`); the run's own folder is added
    per run.  ``rules`` are path -> rights; a folder's rights hold for everything beneath it."""

    rules: list[Rule] = field(default_factory=list)

    @classmethod
    def for_root_plan(cls, plan: RootPlan) -> FileView:
        """The same tree as mode full's new root (:class:`judge.sandbox.kernel.rootfs.RootPlan`): the system folders,
        the standard library and the allowed packages read-only, the site-packages folders masked (only the allowed
        packages beneath them), and four devices."""
        masks = [os.path.realpath(p) for p in plan.site_dirs]
        packages = [os.path.realpath(p) for p in plan.packages]
        roots = [os.path.realpath(p) for p in [*plan.system_dirs, *plan.symlinks]]
        if plan.stdlib:
            roots.append(os.path.realpath(plan.stdlib))
        roots += [p for p in packages if not any(p == m or p.startswith(m + os.sep) for m in masks)]
        rules = [Rule(path, READ_ONLY) for path in _without(sorted(set(roots)), masks)]
        rules += [Rule(p, READ_ONLY) for p in packages if any(p.startswith(m + os.sep) for m in masks)]
        for dev, rights in (("null", READ_FILE | WRITE_FILE), ("zero", READ_FILE), ("urandom", READ_FILE),
                            ("random", READ_FILE)):
            if os.path.exists("/dev/" + dev):
                rules.append(Rule("/dev/" + dev, rights))
        return cls(_deduplicated(rules))

    def open(self) -> list[tuple[int, int]]:
        """Each rule's folder or file opened (O_PATH) with its rights: done once in the zygote, so that a run's init
        adds its rules without a path lookup each (~0.5 ms instead of ~5 for ~200 rules).  Paths that are gone
        are left out."""
        opened = []
        for rule in self.rules:
            try:
                fd = os.open(rule.path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue
            access = rule.access if stat.S_ISDIR(os.fstat(fd).st_mode) else rule.access & FILE_RIGHTS
            opened.append((fd, access))
        return opened


def restrict_self(abi: int, opened: list[tuple[int, int]], workdir: str | None) -> None:
    """Apply the rules ``opened`` (:meth:`FileView.open`) plus every right on ``workdir`` to the calling process and
    all it starts.  Needs no_new_privs first; raises OSError when the kernel refuses (the run then never starts:
    the init reports a set-up error)."""
    handled = handled_fs(abi)
    attr = _RulesetAttr(handled_access_fs=handled,
                        handled_access_net=(NET_BIND_TCP | NET_CONNECT_TCP) if abi >= 4 else 0,
                        scoped=(SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL) if abi >= 6 else 0)
    size = 24 if abi >= 6 else 16 if abi >= 4 else 8
    ruleset = _call(_SYS_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint32(0),
                    what="landlock_create_ruleset")
    own = os.open(workdir, os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC) if workdir else None
    try:
        for fd, access in opened + ([(own, handled)] if own is not None else []):
            beneath = _PathBeneath(allowed_access=access & handled, parent_fd=fd)
            _call(_SYS_ADD_RULE, ctypes.c_int(ruleset), ctypes.c_int(_RULE_PATH_BENEATH), ctypes.byref(beneath),
                  ctypes.c_uint32(0), what="landlock_add_rule")
        _call(_SYS_RESTRICT_SELF, ctypes.c_int(ruleset), ctypes.c_uint32(0), what="landlock_restrict_self")
    finally:
        os.close(ruleset)
        if own is not None:
            os.close(own)


def _call(number: int, *args: object, what: str) -> int:
    result = _libc.syscall(ctypes.c_long(number), *args)
    if result < 0:
        err = ctypes.get_errno() or errno.EINVAL
        raise OSError(err, f"{what}: {os.strerror(err)}")
    return int(result)


def _without(roots: list[str], masks: list[str]) -> list[str]:
    """``roots`` with every folder in ``masks`` cut out: a root that holds a mask is replaced by its children
    (recursively on the way to the mask), since a Landlock rule allows everything beneath its folder."""
    out: list[str] = []
    todo = list(roots)
    while todo:
        path = todo.pop()
        if any(path == m for m in masks):
            continue
        if not any(m.startswith(path.rstrip(os.sep) + os.sep) for m in masks):
            out.append(path)
            continue
        try:
            children = sorted(os.listdir(path))
        except OSError:
            continue
        todo.extend(os.path.join(path, child) for child in children)
    return sorted(out)


def _deduplicated(rules: list[Rule]) -> list[Rule]:
    seen: dict[str, int] = {}
    for rule in rules:
        seen[rule.path] = seen.get(rule.path, 0) | rule.access
    return [Rule(path, access) for path, access in seen.items()]
