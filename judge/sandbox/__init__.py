"""The sandbox: runs learner code as isolated as the machine allows, and says how.  This module is its map and
its one face: the rest of the judge imports ``judge.sandbox`` and the names of ``__all__``, nothing else of it
(``tests/unit/project/test_layout.py`` checks).  Behind the face, five rooms, each a package whose docstring
says more:

``boundary/``  what crosses between the judge and a run, read from both ends
    ``contract``       what a run asks (``RunRequest``) and reports (``RunReport``, ``Hello``); ``SandboxBackend``
    ``messages``       the framing of the judge <-> zygote socket (length, JSON, descriptors)
    ``wire``           the byte layout of a result slot: a bounded header, then raw array bytes
    ``outputs``        a returned array, number or tuple packed as the one array a slot holds
    ``memfd``          sealed memory files: how inputs and the source reach a run unchangeable
    ``result_buffer``  the worker's result memory, reused across runs and zeroed between them
    ``progress``       the shared page where the harness notes which case it is in

``chain/``  the processes, in start order: judge -> zygote -> supervisor -> init -> learner
    ``launch``         starting a zygote: its interpreter line, scrubbed environment and socket
    ``zygote_boot``    the zygote's first step (mode full joins its cgroup while numpy imports)
    ``zygote``         the warm, secret-free process that forks one run per request
    ``supervisor``     the trusted process around a run, and the sandbox's init; the ``Policy`` they follow
    ``harness``        in the learner's process: load the file, call it per case, write slots
    ``watch``          the trusted side's watches: wall clock, and memory without a cgroup
    ``background``     one call in a daemon thread

``kernel/``  one kernel mechanism a module, no policy of its own
    ``linux`` (ctypes), ``seccomp``, ``landlock``, ``acl``, ``uids``, ``rootfs``, ``user_namespace``,
    ``cgroups/``, ``lockdown`` (the steps that lock a forked child down), ``probes`` (throw-away attempts),
    ``leftovers`` (what a run leaves, found and removed)

``backends/``  the judge's side of a run, each a ``SandboxBackend``
    ``zygote_client`` (the process backend), ``container_client`` and ``container_entry`` (one container per
    submission), ``fake`` (replays stored runs), ``factory`` (the backend ``Judge`` is given)

``modes/``  which isolation a run gets: one class a mode (``full``, ``rootless``, ``reduced``, ``container``,
    ``none``) whose hooks (``base``) each process of the chain calls, the ``ladder`` that picks one, the
    ``guarantees`` table of what each gives, and ``capabilities`` (``judge doctor``)

Rooms import downward in this order: ``modes`` and ``backends`` use ``chain``, ``kernel`` and ``boundary``;
``chain`` uses ``kernel`` and ``boundary``; nothing inside imports this face (no circle, type hints included).

The face's names are resolved on first use (PEP 562): the zygote's interpreter imports this package before
anything else, and a cold start must not pay for the judge's side (pydantic, the backends) there.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from judge.sandbox.backends.factory import backend_factory_for, prestarted_factory_for, stop_launched
    from judge.sandbox.boundary import memfd, wire
    from judge.sandbox.boundary.contract import (
        CAPTURE_BYTES,
        ArgSpec,
        ArrayRef,
        BackendError,
        BackendFactory,
        Call,
        Capture,
        RunLimits,
        RunReport,
        RunRequest,
        SandboxBackend,
    )
    from judge.sandbox.boundary.outputs import NotAnOutput, Packed, pack, unpack
    from judge.sandbox.chain.background import InBackground
    from judge.sandbox.chain.launch import ENV_MODE, launch_full_ahead, take_ahead
    from judge.sandbox.modes import guarantees, mode_named
    from judge.sandbox.modes.capabilities import probe
    from judge.sandbox.modes.ladder import CHOICES, choose, ladder, landlock_here

#: Each name of the face, and the module it lives in; a name in ``_MODULES`` is that module itself.
_WHERE = {
    # what a run asks and reports, and the bytes results cross in
    "ArgSpec": "judge.sandbox.boundary.contract",
    "ArrayRef": "judge.sandbox.boundary.contract",
    "BackendError": "judge.sandbox.boundary.contract",
    "BackendFactory": "judge.sandbox.boundary.contract",
    "CAPTURE_BYTES": "judge.sandbox.boundary.contract",
    "Call": "judge.sandbox.boundary.contract",
    "Capture": "judge.sandbox.boundary.contract",
    "RunLimits": "judge.sandbox.boundary.contract",
    "RunReport": "judge.sandbox.boundary.contract",
    "RunRequest": "judge.sandbox.boundary.contract",
    "SandboxBackend": "judge.sandbox.boundary.contract",
    "NotAnOutput": "judge.sandbox.boundary.outputs",
    "Packed": "judge.sandbox.boundary.outputs",
    "pack": "judge.sandbox.boundary.outputs",
    "unpack": "judge.sandbox.boundary.outputs",
    "memfd": "judge.sandbox.boundary.memfd",
    "wire": "judge.sandbox.boundary.wire",
    # starting runs: the backends, a zygote launched ahead, a call beside the judge's work
    "backend_factory_for": "judge.sandbox.backends.factory",
    "prestarted_factory_for": "judge.sandbox.backends.factory",
    "stop_launched": "judge.sandbox.backends.factory",
    "ENV_MODE": "judge.sandbox.chain.launch",
    "launch_full_ahead": "judge.sandbox.chain.launch",
    "take_ahead": "judge.sandbox.chain.launch",
    "InBackground": "judge.sandbox.chain.background",
    # which isolation, and what it guarantees
    "mode_named": "judge.sandbox.modes",
    "guarantees": "judge.sandbox.modes.guarantees",
    "CHOICES": "judge.sandbox.modes.ladder",
    "choose": "judge.sandbox.modes.ladder",
    "ladder": "judge.sandbox.modes.ladder",
    "landlock_here": "judge.sandbox.modes.ladder",
    "probe": "judge.sandbox.modes.capabilities",
}
_MODULES = {"memfd", "wire", "guarantees"}

__all__ = [  # noqa: F822 - resolved by __getattr__ below
    "CAPTURE_BYTES", "CHOICES", "ENV_MODE", "ArgSpec", "ArrayRef", "BackendError", "BackendFactory", "Call",
    "Capture", "InBackground", "NotAnOutput", "Packed", "RunLimits", "RunReport", "RunRequest", "SandboxBackend",
    "backend_factory_for", "choose", "guarantees", "ladder", "landlock_here", "launch_full_ahead", "memfd",
    "mode_named", "pack", "prestarted_factory_for", "probe", "stop_launched", "take_ahead", "unpack", "wire",
]


def __getattr__(name: str) -> Any:
    """A name of the face, imported from its room the first time it is asked for, then kept here."""
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    __import__(where)  # not importlib.import_module: importing importlib would cost the zygote's start
    module = sys.modules[where]
    value = module if name in _MODULES else getattr(module, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
