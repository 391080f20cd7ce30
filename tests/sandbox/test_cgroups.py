"""Real-kernel tests for judge.sandbox.kernel.cgroups (no mocks).

Children are started with a stdin handshake: they block on a line from stdin,
the test moves them into the group, then releases them.  The test process
itself never joins the group, so a kill_all/OOM can't take pytest down.
"""

from __future__ import annotations

import itertools
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

from judge.problem.timescale import time_scale
from judge.sandbox.kernel import cgroups
from judge.sandbox.kernel.cgroups import CgroupSnapshot, WorkerCgroup
from tests.support.common import unavailable
from tests.support.tiers import needs

MiB = 1 << 20
SCALE = time_scale()  # JUDGE_TIME_SCALE: the emulated VM of the cgroup v2 tier is ~20x slower
_counter = itertools.count()


@needs("sandbox")
def _require_cgroups() -> None:
    """Skip loudly (or fail under CI=true) when the kernel can't be tested."""
    reason = None
    if os.geteuid() != 0:
        reason = "cgroup tests need root (euid != 0)"
    else:
        sup = cgroups.detect()
        if sup.version is None or not sup.writable:
            reason = f"cgroups unusable here: {sup.reason}"
    if reason:
        unavailable(f"SKIPPING CGROUP TESTS: {reason}")


def _name() -> str:
    return f"test-{os.getpid()}-{next(_counter)}"


@pytest.fixture
def group() -> Iterator[WorkerCgroup]:
    _require_cgroups()
    g = cgroups.create_worker_cgroup(_name())
    try:
        yield g
    finally:
        g.remove()


def _spawn_in(g: WorkerCgroup, code: str, **kw) -> subprocess.Popen:
    """Start `python -c code`, put it in ``g``, then let it run."""
    script = "import sys; sys.stdin.readline()\n" + code
    p = subprocess.Popen(
        [sys.executable, "-c", script],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        **kw,
    )
    try:
        g.add_process(p.pid)
    except BaseException:
        p.kill()
        p.wait()
        raise
    assert p.stdin is not None
    p.stdin.write("go\n")
    p.stdin.flush()
    return p


def _procs(g: WorkerCgroup) -> set[int]:
    return g._members()  # type: ignore[attr-defined]


def test_detect_reports_version() -> None:
    _require_cgroups()
    sup = cgroups.detect()
    assert sup.version in (1, 2)
    assert "memory" in sup.controllers and "pids" in sup.controllers
    assert sup.reason


def test_oom_kill_is_recorded(group: WorkerCgroup) -> None:
    group.set_limits(64 * MiB, 32)
    before = group.snapshot()
    p = _spawn_in(
        group,
        "b = bytearray(200 << 20)\n"
        "for i in range(0, len(b), 4096): b[i] = 1\n"
        "print('survived')\n",
    )
    out, _ = p.communicate(timeout=10 * SCALE)
    after = group.snapshot()
    assert p.returncode == -signal.SIGKILL, out
    assert "survived" not in out
    assert after.oom_kills >= before.oom_kills + 1
    assert os.getpid() not in _procs(group)


def test_pids_limit_and_kill_all(group: WorkerCgroup) -> None:
    group.set_limits(256 * MiB, 5)
    before = group.snapshot()
    p = _spawn_in(
        group,
        "import subprocess, time\n"
        "ok, fail = [], 0\n"
        "for _ in range(20):\n"
        "    try: ok.append(subprocess.Popen(['sleep', '30']).pid)\n"
        "    except OSError: fail += 1\n"
        "print(fail, *ok, flush=True)\n"
        "time.sleep(30 * %g)\n" % SCALE,
    )
    assert p.stdout is not None
    line = p.stdout.readline().split()
    assert line, "child printed nothing"
    failures, sleepers = int(line[0]), [int(x) for x in line[1:]]
    assert failures > 0
    assert 1 <= len(sleepers) <= 4
    assert group.snapshot().pids_refused > before.pids_refused

    killed = group.kill_all()
    assert killed == 1 + len(sleepers)
    assert _procs(group) == set()
    assert p.wait(timeout=5 * SCALE) == -signal.SIGKILL
    # The orphaned sleeps were reparented and reaped; none may survive.
    deadline = time.monotonic() + 2 * SCALE
    alive = sleepers
    while alive and time.monotonic() < deadline:
        alive = [s for s in alive if _alive(s)]
        time.sleep(0.02)
    assert alive == []


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
        # Only a process that was ours (a sleep) counts; pid reuse is unlikely in 2 s.
        return state != "Z"
    except FileNotFoundError:
        return False


def test_kill_all_keeps_keep(group: WorkerCgroup) -> None:
    group.set_limits(256 * MiB, 10)
    keeper = _spawn_in(group, f"import time; time.sleep({30 * SCALE})")
    victim = _spawn_in(group, f"import time; time.sleep({30 * SCALE})")
    try:
        assert group.kill_all(keep=[keeper.pid]) == 1
        assert victim.wait(timeout=5 * SCALE) == -signal.SIGKILL
        assert keeper.poll() is None
        assert _procs(group) == {keeper.pid}
    finally:
        keeper.kill()
        keeper.wait()
        victim.kill()
        victim.wait()


def test_cpu_and_peak(group: WorkerCgroup) -> None:
    group.set_limits(256 * MiB, 10)
    s0 = group.snapshot()
    p = _spawn_in(
        group,
        "import time\n"
        "b = bytearray(50 << 20)\n"
        "for i in range(0, len(b), 4096): b[i] = 1\n"
        "t = time.process_time()\n"
        "while time.process_time() - t < 0.3: pass\n",
    )
    p.communicate(timeout=10 * SCALE)
    assert p.returncode == 0
    s1 = group.snapshot()
    sup = cgroups.detect()
    if sup.version == 2 or "cpuacct" in sup.controllers:
        assert s1.cpu_ns - s0.cpu_ns >= 200_000_000
    assert s1.memory_peak is not None and s1.memory_peak >= 50 * MiB
    group.reset_peak()
    s2 = group.snapshot()
    assert s2.memory_peak is not None and s2.memory_peak < s1.memory_peak
    assert s2.memory_peak < 50 * MiB
    assert s2.memory_current < 50 * MiB


def test_remove_and_recreate() -> None:
    _require_cgroups()
    name = _name()
    g = cgroups.create_worker_cgroup(name)
    dirs = list(_dirs_of(g))
    assert dirs and all(os.path.isdir(d) for d in dirs)
    g.remove()
    assert not any(os.path.exists(d) for d in dirs)
    g.remove()  # tolerant of already-gone

    # A leftover group with a process in it (crashed run) is taken over.
    g1 = cgroups.create_worker_cgroup(name)
    try:
        g1.set_limits(128 * MiB, 10)
        p = _spawn_in(g1, f"import time; time.sleep({30 * SCALE})")
        g2 = cgroups.create_worker_cgroup(name)
        assert p.wait(timeout=5 * SCALE) == -signal.SIGKILL
        assert _procs(g2) == set()
        assert g2.path_description == g1.path_description
        g2.set_limits(64 * MiB, 5)
        assert isinstance(g2.snapshot(), CgroupSnapshot)
        g2.remove()
        assert not any(os.path.exists(d) for d in dirs)
    finally:
        g1.remove()


def test_a_member_returns_home_and_removes_its_own_group() -> None:
    """What a one-shot zygote does once the judge lets it go (Zygote.finish): a process that joined a worker
    group moves back where it came from, then removes the group itself; v1 and v2 (the VM tier)."""
    _require_cgroups()
    name = _name()
    code = f"""
import json, os
from judge.sandbox.kernel import cgroups
home = open('/proc/self/cgroup').read()
g = cgroups.create_worker_cgroup({name!r})
g.add_process(os.getpid())
g.reset_peak()  # on v2 the process is then in a second leaf
inside = open('/proc/self/cgroup').read()
assert inside != home and {name!r} in inside, inside
print(json.dumps(g._dirs() if g.version == 1 else [g._dir]))
g.return_home(home)
g.remove()
assert open('/proc/self/cgroup').read() == home
print('ok')
"""
    try:
        p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60 * SCALE)
        assert p.returncode == 0 and p.stdout.split()[-1] == "ok", p.stderr[-2000:]
        dirs = json.loads(p.stdout.splitlines()[0])
        assert dirs and not any(os.path.exists(d) for d in dirs), dirs
    finally:
        cgroups.remove_worker_cgroup(name)


def _dirs_of(g: WorkerCgroup) -> list[str]:
    if g.version == 1:
        return g._dirs()  # type: ignore[attr-defined]
    return [g._dir]  # type: ignore[attr-defined]


def test_bad_name_rejected() -> None:
    with pytest.raises(ValueError):
        cgroups.create_worker_cgroup("../escape")


def test_prune_removes_only_old_empty_groups() -> None:
    """Groups of a judge that was SIGKILLed are removed later; fresh or occupied ones never are."""
    _require_cgroups()
    stale, fresh, busy = (cgroups.create_worker_cgroup(_name()) for _ in range(3))
    sleeper = _spawn_in(busy, f"import time; time.sleep({60 * SCALE})")
    try:
        old = time.time() - 3600
        for d in _dirs_of(stale) + _dirs_of(busy):
            os.utime(d, (old, old))
        cgroups.prune_stale_worker_cgroups()
        assert not any(os.path.exists(d) for d in _dirs_of(stale))
        assert all(os.path.isdir(d) for d in _dirs_of(fresh) + _dirs_of(busy))
        assert _procs(busy) == {sleeper.pid}
    finally:
        sleeper.kill()
        sleeper.wait()
        for g in (fresh, busy, stale):
            g.remove()
