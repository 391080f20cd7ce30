"""Mode rootless with a delegated cgroup v2 subtree, for real (marker ``vm``: the cgroup-v2-only VM).

The test (root in the VM) delegates a group exactly as systemd does for ``Delegate=yes``
(user@UID.service, ``systemd-run --user --scope``): memory, pids and cpu enabled in the
parent's cgroup.subtree_control, the directory and its cgroup.procs, cgroup.threads and
cgroup.subtree_control chowned to the user; then a shell moves itself into it as root and
execs Python as that user (setpriv), so the judge is alone in the group, as in a scope.  That
Python runs `judge doctor`'s command and then one warm judge over the examples (printing each
verdict as `judge grade --format json` does): an interpreter or a zygote takes ~20 s to start
under emulation, so this keeps the tier to ~3 min.  The user and its Python environment are
the rootless CI tier's (.ci/isolation-tiers.sh rootless, run by .ci/run before the VM tier).

What must hold: doctor says rootless with the delegated group; the examples get their folder's
verdict with ``limits_by: cgroup`` and the peak from memory.peak (accepted), an OOM kill counted
by memory.events (memory hog), forks refused by pids.max (fork bomb); the judge leaves the
group's root and no worker group behind.  Negatives: `judge grade --isolation rootless` outside
a delegated group gives rlimits and the reason in the verdict; a group shared with another
process is not used.
"""

from __future__ import annotations

import json
import os
import pwd
import shutil
import subprocess
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

from judge.problem.timescale import time_scale
from judge.sandbox.kernel import cgroups
from judge.sandbox.kernel.cgroups.files import read_pids
from tests.support.common import unavailable
from tests.support.fake import make_small_bundle

pytestmark = pytest.mark.vm
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
USER = os.environ.get("JUDGE_ROOTLESS_USER", "judge-rootless")
VENV = os.environ.get("JUDGE_ROOTLESS_VENV", "/opt/numpy-judge-rootless-venv")
TIMEOUT = 120 * time_scale()
CG = "/sys/fs/cgroup"


EXAMPLES = ("accepted/vectorised.py", "memory_limit_exceeded/memory_hog.py", "runtime_error/fork_bomb.py")
#: `judge doctor`, then one warm judge for the examples (an interpreter and a zygote take ~20 s each to
#: start under emulation), printing each verdict as `judge grade --format json` does.
_WARM = """
import sys
from judge import Judge
from judge.cli import main
bundle, *files = sys.argv[1:]
main(["doctor"], standalone_mode=False)  # `judge doctor`, in this interpreter: one start-up less
print("=== verdicts", flush=True)
with Judge(isolation="rootless") as judge:
    for f in files:
        print(judge.grade(open(f, "rb").read(), bundle).model_dump_json(), flush=True)
"""


@pytest.fixture(scope="module")
def user():
    """(uid, gid, python, a folder the user can read: judge/, the bundle, the examples; a home)."""
    if os.geteuid() != 0 or cgroups.detect().version != 2:
        unavailable("SKIPPING DELEGATED-CGROUP TESTS: they need root on a cgroup-v2-only machine "
                    "(run them in the VM: .ci/cgroup2-vm bash .ci/vm-tier.sh)")
    try:
        pw = pwd.getpwnam(USER)
    except KeyError:
        unavailable(f"SKIPPING DELEGATED-CGROUP TESTS: no user {USER} (.ci/isolation-tiers.sh rootless makes it)")
    python = os.path.join(VENV, "bin", "python")
    if not os.access(python, os.X_OK):
        unavailable(f"SKIPPING DELEGATED-CGROUP TESTS: no Python environment at {VENV} "
                    "(.ci/isolation-tiers.sh rootless makes it)")
    base = Path(tempfile.mkdtemp(prefix="judge-delegation-"))  # pytest's own tmp is not the user's to enter
    copy, home = base / "repo", base / "home"
    copy.mkdir(parents=True)  # cp -a keeps mtimes, so the host's .pyc stay valid; and is faster than copytree
    subprocess.run(["cp", "-a", os.path.join(REPO, "judge"), str(copy)], check=True)
    make_small_bundle(copy)  # three statement examples: a grade takes seconds, not a minute, under emulation
    for example in EXAMPLES:
        (copy / example).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(os.path.join(REPO, "submissions", "sinusoidal-pe", example), copy / example)
    home.mkdir()
    subprocess.run(["chown", "-R", f"{pw.pw_uid}:{pw.pw_gid}", str(base)], check=True)
    yield pw.pw_uid, pw.pw_gid, python, str(copy), str(home)
    shutil.rmtree(base, ignore_errors=True)


def _write(path: str, value: str) -> None:
    with open(path, "w") as f:
        f.write(value)


@contextmanager
def _delegated_group(uid: int, gid: int):
    """A fresh group delegated to ``uid`` the way systemd's Delegate=yes does it; removed afterwards.

    Fresh each time: once the judge has enabled controllers in it, the kernel lets no process
    join it any more ("no internal processes"), as with a scope systemd has started."""
    enabled = open(f"{CG}/cgroup.subtree_control").read().split()
    for ctrl in ("memory", "pids", "cpu"):
        if ctrl not in enabled:
            _write(f"{CG}/cgroup.subtree_control", f"+{ctrl}")
    path = f"{CG}/deleg-test-{time.monotonic_ns()}"
    os.mkdir(path)
    for name in ("", "cgroup.procs", "cgroup.threads", "cgroup.subtree_control"):
        os.chown(os.path.join(path, name), uid, gid)
    try:
        yield path
    finally:
        _write(os.path.join(path, "cgroup.kill"), "1")
        for d, _, _ in sorted(os.walk(path), key=lambda e: -e[0].count("/")):
            for _ in range(100):
                try:
                    os.rmdir(d)
                    break
                except OSError:
                    time.sleep(0.05)


@pytest.fixture
def delegated(user):
    with _delegated_group(user[0], user[1]) as path:
        yield path


def _as_user(user, args: list[str], cgroup: str | None, alone: bool = True) -> subprocess.CompletedProcess:
    """``python ARGS`` as the user; first (as root) the shell moves itself into ``cgroup``.

    ``alone``: exec Python, so it is the only process in the group (as in a scope);
    otherwise a shell of the user stays in the group beside it.
    """
    uid, gid, python, copy, home = user
    env = ["env", "-i", f"HOME={home}", "PATH=/usr/bin:/bin", f"PYTHONPATH={copy}", "LANG=C.UTF-8",
           f"JUDGE_TIME_SCALE={os.environ.get('JUDGE_TIME_SCALE', '1')}"]
    drop = ["setpriv", f"--reuid={uid}", f"--regid={gid}", "--clear-groups"]
    inner = [python, *args] if alone else ["sh", "-c", '"$@"; exit $?', "sh", python, *args]
    script = (f"echo $$ > {cgroup}/cgroup.procs && " if cgroup else "") + 'exec "$@"'
    return subprocess.run(["sh", "-c", script, "sh", *drop, *env, *inner], cwd=copy,
                          capture_output=True, text=True, timeout=TIMEOUT)


@pytest.fixture(scope="module")
def warm_verdicts(user):
    """The examples' verdicts from one judge started alone in a delegated group, and the group afterwards."""
    copy = user[3]
    with _delegated_group(user[0], user[1]) as path:
        done = _as_user(user, ["-c", _WARM, os.path.join(copy, "sinusoidal-pe"),
                               *(os.path.join(copy, e) for e in EXAMPLES)], path)
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        doctor, lines = done.stdout.split("=== verdicts\n")
        verdicts = dict(zip(EXAMPLES, map(json.loads, lines.splitlines())))
        workers = [n for n in os.listdir(f"{path}/judge") if os.path.isdir(f"{path}/judge/{n}")]
        yield path[len(CG):], verdicts, workers, read_pids(f"{path}/cgroup.procs"), \
            open(f"{path}/cgroup.subtree_control").read().split(), doctor


def test_doctor_says_rootless_with_the_delegated_group(warm_verdicts):
    hier, doctor = warm_verdicts[0], warm_verdicts[-1]
    assert f"ok   cgroup deleg cgroup v2 delegation: yes — {hier}" in doctor, doctor
    assert "ok   rootless   unprivileged user namespace" in doctor, doctor
    assert f"limits: cgroup v2 delegated ({hier})" in doctor, doctor
    assert "\nisolation: rootless" in doctor, doctor


@pytest.mark.parametrize("example", EXAMPLES)
def test_grade_takes_limits_from_the_delegated_group(warm_verdicts, example):
    hier, verdicts = warm_verdicts[:2]
    folder = example.split("/")[0]
    v = verdicts[example]
    iso, res = v["isolation"], v["resources"]
    assert v["status"] == folder, (v["status"], v["message"][:300], res)
    assert iso["mode"] == "rootless" and iso["limits_by"] == "cgroup", iso
    assert iso["cgroup"].startswith(f"v2 delegated {hier}/judge/w"), iso
    assert res["memory_peak_bytes"] and 0 < res["memory_peak_bytes"] < 1 << 30, res  # memory.peak of a fresh leaf
    if folder == "memory_limit_exceeded":
        assert res["oom_kills"] >= 1, res  # memory.events oom_kill of the run's leaf
    if folder == "runtime_error":
        assert res["forks_refused"] > 0, res  # pids.events max: refused by pids.max (no RLIMIT_NPROC here)


def test_the_judge_left_the_group_root_and_removed_its_worker_groups(warm_verdicts):
    workers, procs, subtree = warm_verdicts[2:5]
    assert workers == [] and procs == set(), (workers, procs)
    assert {"memory", "pids", "cpu"} <= set(subtree), subtree


def test_without_a_delegated_group_rootless_uses_rlimits_and_says_why(user):
    copy = user[3]
    done = _as_user(user, ["-m", "judge.cli", "grade", os.path.join(copy, EXAMPLES[0]), "-p",
                           os.path.join(copy, "sinusoidal-pe"), "--isolation", "rootless", "--format", "json"], None)
    assert done.returncode == 0, (done.stdout[-2000:], done.stderr[-2000:])
    v = json.loads(done.stdout)
    iso = v["isolation"]
    assert v["status"] == "accepted", v["message"][:300]
    assert iso["mode"] == "rootless" and iso["limits_by"] == "rlimits" and iso["cgroup"] is None, iso
    assert "limits by rlimits: cgroup v2 delegation: no — " in iso["note"], iso
    assert "owned by uid 0" in iso["note"], iso


def test_a_group_shared_with_another_process_is_not_used(user, delegated):
    done = _as_user(user, ["-c", "from judge.sandbox.kernel.cgroups.delegation import find; print(find().describe())"],
                    delegated, alone=False)
    assert done.stdout.startswith(f"cgroup v2 delegation: no — {delegated[len(CG):]} is ours but also holds "
                                  "processes"), (done.stdout, done.stderr)
