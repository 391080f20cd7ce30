"""What this machine lets the judge enforce (``judge doctor``), and the isolation mode it will therefore use.

Like isolate's environment check: each capability is probed for real (:mod:`judge.sandbox.kernel.probes`: a
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


def probe() -> list[Capability]:
    from judge.sandbox.kernel.cgroups import detect
    from judge.sandbox.kernel.probes import in_child, new_root, seccomp, uid_drop, unshare_all

    caps = [Capability("root", os.geteuid() == 0, f"euid {os.geteuid()}")]
    ok, why = in_child(unshare_all)
    caps.append(Capability("namespaces", ok, "pid, mount, network, ipc, uts" if ok else why))
    ok, why = in_child(new_root)
    caps.append(Capability("new root", ok, "tmpfs root, read-only binds, pivot_root" if ok else why))
    support = detect()
    caps.append(Capability("cgroups", support.version is not None and support.writable,
                           f"v{support.version} {', '.join(support.controllers)}: {support.reason}"
                           if support.version else support.reason))
    if os.geteuid() != 0:  # mode rootless: kernel limits only in a cgroup v2 group delegated to this user
        from judge.sandbox.kernel.cgroups.delegation import find

        found = find()
        caps.append(Capability("cgroup deleg", found.ok, found.describe()))
    from judge.sandbox.kernel.landlock import abi_version

    abi = abi_version()
    caps.append(Capability("landlock", abi > 0, f"ABI {abi}: mode reduced confines its runs' files" if abi else
                           "refused (kernel before 5.13, or a seccomp profile without it): mode reduced runs see "
                           "every world-readable file"))
    ok, why = in_child(seccomp)
    caps.append(Capability("seccomp", ok, "libseccomp deny-list loads" if ok else why))
    ok, why = in_child(uid_drop)
    caps.append(Capability("uid drop", ok, "setresuid(65534)" if ok else why))
    return caps


def choose_isolation(unsafe_no_sandbox: bool) -> tuple[str, str]:
    """The mode the judge uses by default here, and a note (see :func:`judge.sandbox.modes.ladder.choose`)."""
    from judge.sandbox.modes.ladder import choose

    return choose(None, unsafe_no_sandbox)
