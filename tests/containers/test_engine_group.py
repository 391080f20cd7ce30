"""The container backend's view of the group the Docker engine puts a run's container under.

:class:`judge.sandbox.kernel.cgroups.counters.EngineGroup` reads that group with the process
backend's reader and removes it afterwards.  Here the test plays the engine on the real
kernel: it creates ``/<name>/run-1`` in every hierarchy mounted at its root, as the engine's
cgroupfs driver does for ``--cgroup-parent``, runs a child in it, and checks the counters
and the clean-up (tests/containers/test_container.py covers the same reader behind a real engine).
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from judge.problem.timescale import time_scale
from judge.sandbox.kernel import cgroups
from judge.sandbox.kernel.cgroups.counters import EngineGroup
from judge.sandbox.kernel.cgroups.mounts import _best_v2_mount, _cgroup_mounts, _v1_controller_mounts
from tests.support.common import unavailable
from tests.support.tiers import needs

MiB = 1 << 20


@pytest.fixture
@needs("sandbox")  # real cgroups, as root
def engine_like():
    """(EngineGroup, folders holding the child) for a fresh /<name>/run-1 made as the engine makes it."""
    if os.geteuid() != 0:
        unavailable("SKIPPING ENGINE GROUP TEST: it needs root (euid != 0)")
    support = cgroups.detect()
    if support.version is None or not support.writable:
        unavailable(f"SKIPPING ENGINE GROUP TEST: cgroups unusable here: {support.reason}")
    parent = f"judge-engine-test-{os.getpid()}"
    mounts = _cgroup_mounts()
    if support.version == 1:
        roots = list(dict.fromkeys(m.mount_point for m in mounts if m.root == "/" and m.fstype == "cgroup"))
        joined = list(dict.fromkeys(m.mount_point for c, m in _v1_controller_mounts(mounts).items()
                                    if c in ("memory", "pids", "cpuacct")))
    else:
        m2, _ = _best_v2_mount(mounts)
        roots = joined = [m2.mount_point]
        for folder in (m2.mount_point, os.path.join(m2.mount_point, parent)):
            os.makedirs(folder, exist_ok=True)
            for controller in ("memory", "pids"):
                with open(os.path.join(folder, "cgroup.subtree_control"), "w") as f:
                    f.write(f"+{controller}")
    for root in roots:
        os.makedirs(os.path.join(root, parent, "run-1"), exist_ok=True)
    group = EngineGroup(f"/{parent}/run-1", support.version)
    try:
        yield group, [os.path.join(root, parent, "run-1") for root in joined], support
    finally:
        EngineGroup(f"/{parent}", support.version).remove()
        left = [os.path.join(r, parent) for r in roots if os.path.exists(os.path.join(r, parent))]
        assert left == [], left


def test_counters_of_a_group_the_engine_made_are_that_runs_alone(engine_like):
    group, folders, support = engine_like
    child = subprocess.Popen([sys.executable, "-c",
                              "import sys, time\nsys.stdin.readline()\n"
                              "b = bytearray(50 << 20)\nfor i in range(0, len(b), 4096): b[i] = 1\n"
                              "t = time.process_time()\nwhile time.process_time() - t < 0.3: pass\n"],
                             stdin=subprocess.PIPE, text=True)
    try:
        for folder in folders:
            with open(os.path.join(folder, "cgroup.procs"), "w") as f:
                f.write(str(child.pid))
        child.communicate("go\n", timeout=30 * time_scale())
    finally:
        child.kill()
        child.wait()
    snap = group.snapshot()
    assert snap is not None
    assert snap.memory_peak is not None and snap.memory_peak >= 50 * MiB
    if support.version == 2 or "cpuacct" in support.controllers:
        assert snap.cpu_ns >= 200_000_000
    assert snap.oom_kills == 0 and snap.pids_refused == 0


def test_a_group_not_made_yet_reads_as_none_and_removes_quietly():
    support = cgroups.detect()
    if support.version is None:
        unavailable(f"SKIPPING ENGINE GROUP TEST: no cgroups here: {support.reason}")
    group = EngineGroup(f"/judge-engine-test-{os.getpid()}-never/run-1", support.version)
    assert group.snapshot() is None
    group.remove()
