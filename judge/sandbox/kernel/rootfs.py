"""Builds the child's view of the filesystem: a tmpfs root holding read-only binds of
the system libraries, the Python standard library and numpy, and nothing else.

The judge's folders (problems, reference solutions, cases, caches) are simply
absent: there is no path to them.  After ``pivot_root`` the old root is
detached and the new root remounted read-only, so only the small private /tmp
is writable.
"""

from __future__ import annotations

import os
import sys
import sysconfig
from dataclasses import dataclass, field

from judge.sandbox.kernel import linux

NEW_ROOT = "/run/judge-sandbox-root"
_RO = linux.MS_BIND | linux.MS_REMOUNT | linux.MS_RDONLY | linux.MS_NOSUID | linux.MS_NODEV
_DEVICES = ("null", "zero", "urandom", "random")


def _module_dirs(names: tuple[str, ...]) -> list[str]:
    dirs = []
    for name in names:
        module = sys.modules.get(name)
        paths = list(getattr(module, "__path__", []) or [])
        for path in paths:
            dirs.append(os.path.realpath(path))
            libs = os.path.realpath(path) + ".libs"  # auditwheel's vendored shared libraries
            if os.path.isdir(libs):
                dirs.append(libs)
    return dirs


@dataclass
class RootPlan:
    """What the child's root contains; computed once in the zygote, reused per child."""

    system_dirs: list[str] = field(default_factory=list)  # bound read-only as they are
    symlinks: dict[str, str] = field(default_factory=dict)  # /lib -> usr/lib on merged-/usr systems
    stdlib: str = ""
    site_dirs: list[str] = field(default_factory=list)  # site-packages folders to mask with a tmpfs
    packages: list[str] = field(default_factory=list)  # package folders bound back into them
    tmp_bytes: int = 16 << 20

    @classmethod
    def for_this_interpreter(cls, packages: tuple[str, ...] = ("numpy",), tmp_bytes: int = 16 << 20) -> RootPlan:
        plan = cls(tmp_bytes=tmp_bytes)
        for top in ("usr", "lib", "lib64", "lib32", "bin", "sbin"):
            path = "/" + top
            if os.path.islink(path):
                plan.symlinks[path] = os.readlink(path)
            elif os.path.isdir(path):
                plan.system_dirs.append(path)
        plan.stdlib = os.path.realpath(sysconfig.get_paths()["stdlib"])
        site = {os.path.realpath(p) for p in (sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"])}
        plan.site_dirs = sorted(p for p in site if p.startswith(plan.stdlib + os.sep))
        plan.packages = _module_dirs(packages)
        return plan


_LOCKED = ((os.ST_NOEXEC, linux.MS_NOEXEC), (os.ST_NOATIME, 1024), (os.ST_NODIRATIME, 2048),
           (os.ST_RELATIME, 1 << 21))


def _locked_flags(target: str) -> int:
    """Flags of the mount at ``target`` a remount must keep: inside a user namespace the kernel
    locks them (EPERM if dropped); as root keeping them changes nothing."""
    have = os.statvfs(target).f_flag
    return sum(ms for st, ms in _LOCKED if have & st)


def _bind_ro(source: str, target: str) -> None:
    if os.path.isdir(source):
        os.makedirs(target, exist_ok=True)
    else:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        if not os.path.exists(target):
            open(target, "wb").close()
    linux.mount(source, target, None, linux.MS_BIND | linux.MS_REC)
    linux.mount(None, target, None, _RO | linux.MS_REC | _locked_flags(target))


def enter_new_root(plan: RootPlan) -> None:
    """Replace this mount namespace's root with the planned one (the caller has unshared NEWNS)."""
    linux.mount(None, "/", None, linux.MS_REC | linux.MS_PRIVATE)
    root = NEW_ROOT
    try:
        os.makedirs(NEW_ROOT, exist_ok=True)
    except PermissionError:  # rootless: no /run/... to create; any existing folder will do as mount point
        root = "/tmp"
    linux.mount("judge-root", root, "tmpfs", linux.MS_NOSUID | linux.MS_NODEV, "size=4m,mode=0755")
    for path in plan.system_dirs:
        _bind_ro(path, root + path)
    for path, target in plan.symlinks.items():
        os.symlink(target, root + path)
    if plan.stdlib and not plan.stdlib.startswith("/usr/"):
        _bind_ro(plan.stdlib, root + plan.stdlib)
    for site in plan.site_dirs:
        # Mask every installed package, then bring back only the allowed ones.
        linux.mount("judge-site", root + site, "tmpfs", linux.MS_NOSUID | linux.MS_NODEV, "size=64k,mode=0755")
        for pkg in plan.packages:
            if os.path.dirname(pkg) == site:
                _bind_ro(pkg, root + pkg)
        linux.mount(None, root + site, None, linux.MS_REMOUNT | linux.MS_RDONLY | linux.MS_NOSUID | linux.MS_NODEV)
    for pkg in plan.packages:  # a virtual environment's packages live outside the interpreter's prefix
        if not any(os.path.dirname(pkg) == site for site in plan.site_dirs) and \
                not any(pkg.startswith(d + os.sep) for d in plan.system_dirs):
            _bind_ro(pkg, root + pkg)
    os.makedirs(root + "/dev", exist_ok=True)
    for dev in _DEVICES:
        if os.path.exists("/dev/" + dev):
            _bind_ro("/dev/" + dev, root + "/dev/" + dev)
    os.makedirs(root + "/tmp", mode=0o1777, exist_ok=True)
    linux.mount("judge-tmp", root + "/tmp", "tmpfs", linux.MS_NOSUID | linux.MS_NODEV,
                f"size={plan.tmp_bytes},mode=1777")
    os.chdir(root)
    linux.pivot_root(".", ".")
    linux.umount(".", linux.MNT_DETACH)
    os.chdir("/")
    linux.mount(None, "/", None, linux.MS_REMOUNT | linux.MS_BIND | linux.MS_RDONLY | linux.MS_NOSUID | linux.MS_NODEV)
    os.chdir("/tmp")
