"""Mode rootless with a delegated cgroup v2 subtree, for real (marker ``vm``: the cgroup-v2-only VM).

The test (root in the VM) delegates a group exactly as systemd does for ``Delegate=yes``
(user@UID.service, ``systemd-run --user --scope``): memory, pids and cpu enabled in the
parent's cgroup.subtree_control, the directory and its cgroup.procs, cgroup.threads and
cgroup.subtree_control chowned to the user; then a shell moves itself into it as root and
execs, as that user (setpriv), the judge's command line, so the judge is alone in the group,
as in a scope.  The user and its Python environment are the rootless CI tier's
(.ci/isolation-tiers.sh rootless, run by .ci/run before the VM tier).

What must hold: ``judge doctor`` says rootless with the delegated group; ``judge grade
--isolation rootless`` gives the folder's verdict with ``limits_by: cgroup`` and the peak from
memory.peak (accepted), an OOM kill counted by memory.events (memory hog), forks refused by
pids.max (fork bomb), and leaves no worker group behind; the same user outside a delegated
group gets rlimits and the reason in the verdict.
"""

from __future__ import annotations

import json
import os
import pwd
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from conftest import unavailable
from fake_support import make_small_bundle
from judge.sandbox import cgroups
from judge.timescale import time_scale

pytestmark = pytest.mark.vm
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
USER = os.environ.get("JUDGE_ROOTLESS_USER", "judge-rootless")
VENV = os.environ.get("JUDGE_ROOTLESS_VENV", "/opt/numpy-judge-rootless-venv")
TIMEOUT = 120 * time_scale()
CG = "/sys/fs/cgroup"


@pytest.fixture(scope="module")
def user():
    """(uid, gid, python, a copy of the repository the user can read, a home)."""
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
    for part in ("judge", "problems", "submissions"):  # copy2 keeps mtimes: the host's .pyc stay valid
        shutil.copytree(os.path.join(REPO, part), copy / part)
    home.mkdir()
    make_small_bundle(copy / "small")  # three statement examples: each grade costs ~20x less under emulation
    for d in (base, copy, home):
        os.chown(d, pw.pw_uid, pw.pw_gid)
    subprocess.run(["chown", "-R", f"{pw.pw_uid}:{pw.pw_gid}", str(copy), str(home)], check=True)
    yield pw.pw_uid, pw.pw_gid, python, str(copy), str(home)
    shutil.rmtree(base, ignore_errors=True)


def _write(path: str, value: str) -> None:
    with open(path, "w") as f:
        f.write(value)


@pytest.fixture
def delegated(user):
    """A fresh group delegated to the user the way systemd's Delegate=yes does it; removed afterwards.

    Fresh per test: once the judge has enabled controllers in it, the kernel lets no process
    join it any more ("no internal processes"), as with a scope systemd has started."""
    uid, gid = user[0], user[1]
    enabled = open(f"{CG}/cgroup.subtree_control").read().split()
    for ctrl in ("memory", "pids", "cpu"):
        if ctrl not in enabled:
            _write(f"{CG}/cgroup.subtree_control", f"+{ctrl}")
    path = f"{CG}/deleg-test-{time.monotonic_ns()}"
    os.mkdir(path)
    for name in ("", "cgroup.procs", "cgroup.threads", "cgroup.subtree_control"):
        os.chown(os.path.join(path, name), uid, gid)
    yield path
    _write(os.path.join(path, "cgroup.kill"), "1")
    for d, _, _ in sorted(os.walk(path), key=lambda e: -e[0].count("/")):
        for _ in range(100):
            try:
                os.rmdir(d)
                break
            except OSError:
                time.sleep(0.05)


def _as_user(user, args: list[str], cgroup: str | None, alone: bool = True) -> subprocess.CompletedProcess:
    """``python -m judge.cli ARGS`` as the user; first (as root) move the shell into ``cgroup``.

    ``alone``: exec the judge, so it is the only process in the group (as in a scope);
    otherwise a shell of the user stays in the group beside it.
    """
    uid, gid, python, copy, home = user
    env = ["env", "-i", f"HOME={home}", "PATH=/usr/bin:/bin", f"PYTHONPATH={copy}", "LANG=C.UTF-8",
           f"JUDGE_TIME_SCALE={os.environ.get('JUDGE_TIME_SCALE', '1')}"]
    drop = ["setpriv", f"--reuid={uid}", f"--regid={gid}", "--clear-groups"]
    judge = [python, "-m", "judge.cli", *args]
    inner = judge if alone else ["sh", "-c", '"$@"; exit $?', "sh", *judge]
    script = (f"echo $$ > {cgroup}/cgroup.procs && " if cgroup else "") + 'exec "$@"'
    return subprocess.run(["sh", "-c", script, "sh", *drop, *env, *inner], cwd=copy,
                          capture_output=True, text=True, timeout=TIMEOUT)


def _grade(user, folder: str, name: str, cgroup: str | None) -> dict:
    path = os.path.join(user[3], "submissions", "sinusoidal-pe", folder, name)
    bundle = os.path.join(user[3], "small", "sinusoidal-pe")
    done = _as_user(user, ["grade", path, "-p", bundle, "--isolation", "rootless", "--format", "json"], cgroup)
    assert done.returncode in (0, 1), (done.returncode, done.stderr[-2000:])
    return json.loads(done.stdout)


def test_doctor_says_rootless_with_the_delegated_group(user, delegated):
    done = _as_user(user, ["doctor"], delegated)
    hier = delegated[len(CG):]
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"ok   cgroup deleg cgroup v2 delegation: yes — {hier}" in done.stdout, done.stdout
    assert f"limits: cgroup v2 delegated ({hier})" in done.stdout, done.stdout
    assert "\nisolation: rootless" in done.stdout, done.stdout


@pytest.mark.parametrize("example", ["accepted/vectorised.py", "memory_limit_exceeded/memory_hog.py",
                                     "runtime_error/fork_bomb.py"])
def test_grade_takes_limits_from_the_delegated_group(user, delegated, example):
    folder, name = example.split("/")
    v = _grade(user, folder, name, delegated)
    iso, res = v["isolation"], v["resources"]
    assert v["status"] == folder, (v["status"], v["message"][:300], res)
    assert iso["mode"] == "rootless" and iso["limits_by"] == "cgroup", iso
    assert iso["cgroup"].startswith(f"v2 delegated {delegated[len(CG):]}/judge/w"), iso
    assert res["memory_peak_bytes"] and 0 < res["memory_peak_bytes"] < 1 << 30, res  # memory.peak of a fresh leaf
    if folder == "memory_limit_exceeded":
        assert res["oom_kills"] >= 1, res  # memory.events oom_kill of the run's leaf
    if folder == "runtime_error":
        assert res["forks_refused"] > 0, res  # pids.events max: refused by pids.max, not RLIMIT_NPROC
    # The judge moved itself out of the group's root, and removed its worker group on the way out.
    judge_dir = os.path.join(delegated, "judge")
    assert [n for n in os.listdir(judge_dir) if os.path.isdir(os.path.join(judge_dir, n))] == []
    assert open(os.path.join(delegated, "cgroup.procs")).read() == ""
    assert "memory" in open(os.path.join(delegated, "cgroup.subtree_control")).read().split()


def test_without_a_delegated_group_rootless_uses_rlimits_and_says_why(user):
    v = _grade(user, "accepted", "vectorised.py", cgroup=None)
    iso = v["isolation"]
    assert v["status"] == "accepted", v["message"][:300]
    assert iso["mode"] == "rootless" and iso["limits_by"] == "rlimits" and iso["cgroup"] is None, iso
    assert "limits by rlimits: cgroup v2 delegation: no — " in iso["note"], iso
    assert "owned by uid 0" in iso["note"], iso
    assert v["resources"]["memory_peak_bytes"], v["resources"]  # from wait4/VmHWM


def test_a_group_shared_with_another_process_is_not_used(user, delegated):
    done = _as_user(user, ["doctor"], delegated, alone=False)
    assert "NO   cgroup deleg cgroup v2 delegation: no — " in done.stdout, done.stdout
    assert "also holds processes" in done.stdout, done.stdout
    assert "limits: rlimits (cgroup v2 delegation: no" in done.stdout, done.stdout
