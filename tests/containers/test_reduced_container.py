"""Mode reduced where it is meant to run: the judge image under a default `docker run`.

Root in the container with Docker's default capabilities and seccomp profile and nothing
added -- how Gradescope, PrairieLearn and Exercism run graders: namespaces are refused and
cgroups are read-only, so the judge must choose mode reduced by itself.  Every attack file and
every example that does not end by returning (limits, crashes, refusals) must get its folder's
verdict, each verdict must say isolation.mode == "reduced" and list what the mode does not
enforce (the guarantee table), and a canary secret in the judge's environment must reach no
verdict.
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess

import pytest

from tests.support.common import SUBMISSIONS, require_docker

JUDGE_IMAGE = os.environ.get("JUDGE_IMAGE", "numpy-judge:local")
#: Plain files graded beside the attacks: one accepted (a notebook too) and two wrong answers.
CONTROLS = ("accepted/vectorised.py", "accepted/colab_homework.ipynb", "wrong_answer/sin_cos_swapped.py",
            "wrong_answer/input_mutated.py")

# Time limits are scaled by the judge's own JUDGE_TIME_SCALE (judge/problem/timescale.py), passed into the
# container: a loaded 2-core machine can stretch a 1 s call past the bundle's 4 s per-case limit.
TIME_SCALE = os.environ.get("JUDGE_TIME_SCALE") or "2"

# Runs inside the container: grades every example with the mode the judge chooses by itself, against a
# copy of the bundle (in world-writable /tmp, so the ACL that hides it from the sandbox uid is exercised).
_GRADE_ALL = r'''
import json, os, pathlib, shutil
from judge import Judge
bundle = pathlib.Path("/tmp/bundles/sinusoidal-pe")
shutil.copytree("/opt/judge/problems/sinusoidal-pe", bundle)
root = pathlib.Path("/opt/judge/submissions/sinusoidal-pe")
from concurrent.futures import ThreadPoolExecutor
files = [root / name for name in json.loads(os.environ["JUDGE_EXAMPLES"])]
with Judge(workers=2) as judge, ThreadPoolExecutor(2) as pool:  # two at once: CI's two cores
    for path, v in zip(files, pool.map(lambda path: judge.grade(path.read_bytes(), str(bundle)), files)):
        print(json.dumps({"file": f"{path.parent.name}/{path.name}", "status": v.status.value,
                          "isolation": v.isolation.model_dump() if v.isolation else None,
                          "verdict": v.model_dump_json()}), flush=True)
'''


def _examples() -> list[str]:
    """The examples whose verdict could depend on the mode: every attack, every file that ends its run other
    than by returning, and plain controls (the other wrong answers differ from these in numbers only, compared
    outside any sandbox; every mode's tier grades them elsewhere).  As tests/containers/test_container.py."""
    return sorted(f"{p.parent.name}/{p.name}" for p in SUBMISSIONS.glob("*/*") if p.suffix in (".py", ".ipynb")
                  and (p.name.startswith("attack_") or p.parent.name not in ("accepted", "wrong_answer")
                       or f"{p.parent.name}/{p.name}" in CONTROLS))


@pytest.fixture(scope="module")
def graded_in_image():
    require_docker(JUDGE_IMAGE, what="REDUCED-MODE CONTAINER TESTS").close()
    canary = "canary-" + secrets.token_hex(12)
    r = subprocess.run(["docker", "run", "--rm", "-e", f"JUDGE_CANARY={canary}", "-e", f"JUDGE_TIME_SCALE={TIME_SCALE}",
                        "-e", f"JUDGE_EXAMPLES={json.dumps(_examples())}",
                        "--entrypoint", "python3", JUDGE_IMAGE, "-c", _GRADE_ALL],
                       capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stderr[-3000:]
    rows = [json.loads(line) for line in r.stdout.splitlines() if line.startswith("{")]
    return canary, {row["file"]: row for row in rows}


def test_every_example_gets_its_folder_verdict_in_mode_reduced(graded_in_image):
    from judge.sandbox.modes import mode_named

    canary, rows = graded_in_image
    assert set(rows) == set(_examples()) and len(rows) >= 45
    wrong = {f: r["status"] for f, r in rows.items() if r["status"] != f.split("/")[0]}
    assert wrong == {}, wrong
    for row in rows.values():
        assert canary not in row["verdict"], row["file"]
        if row["status"] == "compile_error":
            continue  # refused before any sandbox ran: no isolation to report
        isolation = row["isolation"]
        assert isolation["mode"] == "reduced" and isolation["limits_by"] == "rlimits", isolation
        assert isolation["not_enforced"] == mode_named("reduced").not_enforced()
        assert isolation["uid"] not in (0, None)


def test_memory_hogs_are_memory_limit_exceeded_from_kernel_records(graded_in_image):
    _, rows = graded_in_image
    for name in ("memory_hog.py", "catch_memoryerror_and_continue.py", "python_bytes_hog.py"):
        verdict = json.loads(rows[f"memory_limit_exceeded/{name}"]["verdict"])
        assert verdict["resources"]["oom_kills"] >= 1 or "RLIMIT_AS" in verdict["message"], verdict["message"]


# ------------------------------------------------------------------------- cross-run: one run, the next run

#: Docker's default profile with Landlock refused, as engines before 2022 refused it (EPERM): mode reduced must
#: then fall back to ACLs and the writable-folder scan.  The engine's own default stays for everything else that
#: matters here: no capability is added, so namespaces stay refused.
NO_LANDLOCK_PROFILE = {
    "defaultAction": "SCMP_ACT_ALLOW",
    "syscalls": [{"names": ["landlock_create_ruleset", "landlock_add_rule", "landlock_restrict_self",
                            "unshare", "setns", "mount", "pivot_root"],
                  "action": "SCMP_ACT_ERRNO", "errnoRet": 1}],
}

_CROSS_RUN = r'''
import json, secrets, sys
sys.path.insert(0, "/tests/support")
from cross_run import attacker, control, findings, process_memory_holds, victim
from judge import Judge
token = secrets.token_hex(16)
out = {}
with Judge() as judge:
    judge.warm_up()
    planted = judge.grade(victim(token))
    out["planted"] = f"PLANTED:{token}" in planted.stdout.text
    out["isolation"] = planted.isolation.model_dump()
    out["zygote"] = [hit for w in list(judge._pool.queue) for hit in process_memory_holds(w.pid, token.encode())]
    searched = judge.grade(attacker(token))
    out["attacker"] = {"status": searched.status.value, "found": findings(searched.stdout.text)[0],
                       "clean": findings(searched.stdout.text)[1], "leaked": token in searched.model_dump_json()}
    out["zygote_after"] = [hit for w in list(judge._pool.queue) for hit in process_memory_holds(w.pid, b"PLANTED:")]
with Judge() as judge:
    own = secrets.token_hex(16)
    out["control"] = findings(judge.grade(control(own)).stdout.text)[0]
print("RESULT " + json.dumps(out))
'''


def _docker_run(script: str, *flags: str, timeout: int = 600, args: list[str] | None = None, mounts: bool = True):
    """Run ``script`` with the image's python3 in a default ``docker run`` (plus ``flags``); what it printed after
    ``RESULT``, as JSON.  ``mounts``: this checkout's tests/ and submissions/ at /tests and /submissions (readable
    by everyone: leave them out where an attack would find their example solutions)."""
    tests = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    volumes = (
        ["-v", f"{tests}:/tests:ro", "-v", f"{os.path.dirname(tests)}/submissions:/submissions:ro"] if mounts else []
    )
    r = subprocess.run(["docker", "run", "--rm", *volumes, "-e", f"JUDGE_TIME_SCALE={TIME_SCALE}",
                        "-e", f"JUDGE_EXAMPLES={json.dumps(_examples())}",
                        *flags, "--entrypoint", "python3", JUDGE_IMAGE, "-c", script, *(args or [])],
                       capture_output=True, text=True, timeout=timeout)
    assert r.returncode == 0, (r.stdout[-2000:], r.stderr[-3000:])
    line = next((x for x in r.stdout.splitlines() if x.startswith("RESULT ")), None)
    assert line is not None, (r.stdout[-2000:], r.stderr[-3000:])
    return json.loads(line[len("RESULT "):])


@pytest.fixture(scope="module")
def no_landlock_profile(tmp_path_factory):
    path = tmp_path_factory.mktemp("seccomp") / "no-landlock.json"
    path.write_text(json.dumps(NO_LANDLOCK_PROFILE))
    return str(path)


@pytest.mark.parametrize("landlock", [True, False], ids=["landlock", "no-landlock"])
def test_reduced_warm_judge_gives_no_byte_of_one_run_to_the_next(landlock, no_landlock_profile):
    require_docker(JUDGE_IMAGE, what="REDUCED-MODE CONTAINER TESTS").close()
    flags = () if landlock else ("--security-opt", f"seccomp={no_landlock_profile}")
    out = _docker_run(_CROSS_RUN, *flags)
    assert out["isolation"]["mode"] == "reduced", out["isolation"]
    assert ("file_system" in out["isolation"]["not_enforced"]) is (not landlock), out["isolation"]
    assert out["planted"]
    assert out["zygote"] == [] and out["zygote_after"] == [], out
    assert out["attacker"]["found"] == [] and len(out["attacker"]["clean"]) == 3, out["attacker"]
    assert out["attacker"]["status"] == "wrong_answer" and not out["attacker"]["leaked"], out["attacker"]
    assert {line.split(" (")[0] for line in out["control"]} == \
        {"FOUND in result buffer", "FOUND in memory", "FOUND in files"}, out["control"]


_GRADE = r'''
import json, os, sys
from judge import Judge
files = sys.argv[1:]
out = []
with Judge() as judge:
    for name in files:
        v = judge.grade(open(name, "rb").read(), os.environ.get("BUNDLE", "sinusoidal-pe"))
        out.append({"file": name, "status": v.status.value, "uid": v.isolation.uid if v.isolation else None,
                    "note": v.isolation.note if v.isolation else "", "message": v.message[:300]})
print("RESULT " + json.dumps(out), flush=True)
'''
CORRECT_IN_IMAGE = "/opt/judge/submissions/sinusoidal-pe/accepted/vectorised.py"


def _in_image(name: str) -> str:
    return f"/opt/judge/submissions/sinusoidal-pe/{name}"


def _grade_in_container(files: list[str], *flags: str, timeout: int = 600) -> list[dict]:
    return _docker_run(_GRADE + "\n", *flags, timeout=timeout, args=files)


def test_two_grader_containers_at_once_never_share_a_uid():
    """Breach 10: every container once claimed uid 62000, and RLIMIT_NPROC counts a uid across the host, so a fork
    bomb in one grader container failed a correct file in another.  Uids are now drawn at random."""
    require_docker(JUDGE_IMAGE, what="REDUCED-MODE CONTAINER TESTS").close()
    import concurrent.futures

    bombs = [_in_image("runtime_error/fork_bomb.py")] * 4
    correct = [CORRECT_IN_IMAGE] * 4
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        a, b = pool.submit(_grade_in_container, bombs), pool.submit(_grade_in_container, correct)
        bombed, graded_in_image = a.result(), b.result()
    assert [r["status"] for r in graded_in_image] == ["accepted"] * 4, graded_in_image
    assert [r["status"] for r in bombed] == ["runtime_error"] * 4, bombed
    uids = {r["uid"] for r in bombed} | {r["uid"] for r in graded_in_image}
    assert len(uids) == 2 and min(uids) >= 1 << 24, uids


def test_shared_memory_hog_in_a_memory_limited_container_leaves_nothing_for_the_next_runs():
    """Breach 6: in PrairieLearn's ``-m 2g --memory-swap 2g``, System V segments outlived a run and the next two
    correct files were OOM-killed without a verdict.  Each file here is its own ``judge grade`` process."""
    require_docker(JUDGE_IMAGE, what="REDUCED-MODE CONTAINER TESTS").close()
    script = r'''
import json, subprocess
out = []
for name in ["%s", "%s", "%s"]:
    r = subprocess.run(["judge", "grade", name, "--format", "json"], capture_output=True, text=True)
    out.append(json.loads(r.stdout)["status"] if r.stdout.startswith("{") else "no verdict: " + r.stderr[-300:])
out.append(open("/proc/sysvipc/shm").read().splitlines()[1:])
print("RESULT " + json.dumps(out))
''' % (_in_image("memory_limit_exceeded/attack_shared_memory_hog.py"), CORRECT_IN_IMAGE, CORRECT_IN_IMAGE)
    out = _docker_run(script, "-m", "2g", "--memory-swap", "2g")
    assert out == ["memory_limit_exceeded", "accepted", "accepted", []], out


@pytest.mark.parametrize("landlock", [True, False], ids=["landlock", "no-landlock"])
def test_leftovers_reach_neither_the_same_zygote_nor_one_started_later(landlock, no_landlock_profile):
    """Breaches 7 and 8: a 1,500-level folder chain broke the clean-up (RecursionError, then internal_error for
    every later run of the uid); files in /run/lock and /dev/mqueue and symlinks planted at the uid lock paths
    survived, and a zygote started later in the container could claim no uid."""
    require_docker(JUDGE_IMAGE, what="REDUCED-MODE CONTAINER TESTS").close()
    script = r"""
import json, os, subprocess
from judge import Judge
out = []
for batch in (["%(attack)s", "%(correct)s"], ["%(correct)s"]):  # the second batch: a zygote started afterwards
    with Judge() as judge:
        for name in batch:
            v = judge.grade(open(name, "rb").read())
            out.append(v.status.value)
left = subprocess.run("find / -xdev \\( -name '*numpy-judge-attack*' -o -name 'numpy-judge-uid-*' \\) 2>/dev/null; "
                      "find /dev/shm /dev/mqueue /run -name '*numpy-judge-attack*' 2>/dev/null; "
                      "ls /tmp /var/tmp | grep numpy-judge-run || true",
                      shell=True, capture_output=True, text=True).stdout
out.append(left.split())
out.append([l for f in ("shm", "msg", "sem") for l in open("/proc/sysvipc/" + f).read().splitlines()[1:]])
print("RESULT " + json.dumps(out))
""" % {"attack": _in_image("wrong_answer/attack_leave_leftovers.py"), "correct": CORRECT_IN_IMAGE}
    flags = () if landlock else ("--security-opt", f"seccomp={no_landlock_profile}")
    out = _docker_run(script, *flags)
    assert out == ["wrong_answer", "accepted", "accepted", [], []], out


def _backing_disk(path: str = "/var/lib/docker") -> str | None:
    """The whole-disk device under ``path`` (for a write throttle), from /sys; None where it cannot be told."""
    st = os.stat(path)
    sys_dir = f"/sys/dev/block/{os.major(st.st_dev)}:{os.minor(st.st_dev)}"
    if not os.path.isdir(sys_dir):
        return None
    real = os.path.realpath(sys_dir)
    if os.path.exists(os.path.join(real, "partition")):
        real = os.path.dirname(real)
    try:
        with open(os.path.join(real, "uevent")) as f:
            name = dict(line.strip().split("=", 1) for line in f if "=" in line).get("DEVNAME")
    except OSError:
        return None
    return f"/dev/{name}" if name and os.path.exists(f"/dev/{name}") else None


def test_a_child_sigkill_cannot_end_leaves_the_uid_quarantined_not_the_next_run_broken():
    """Breach 9: a child in uninterruptible sleep outlived the 2 s clean-up; the verdict was internal_error and a
    process of the run's uid stayed alive.  A disk throttled to 64 KiB/s makes the child's fsync of 1 MiB last
    ~16 s: the run's own verdict is its wrong answer, later runs take a fresh uid and pass."""
    require_docker(JUDGE_IMAGE, what="REDUCED-MODE CONTAINER TESTS").close()
    disk = _backing_disk()
    if disk is None:
        from tests.support.common import unavailable

        unavailable("cannot tell the block device under /var/lib/docker to throttle it")
    out = _grade_in_container(
        [_in_image("wrong_answer/attack_unkillable_child.py"), CORRECT_IN_IMAGE, CORRECT_IN_IMAGE],
        "--device-write-bps",
        f"{disk}:64kb",
    )
    assert [r["status"] for r in out] == ["wrong_answer", "accepted", "accepted"], out
    assert out[1]["uid"] != out[0]["uid"] == out[0]["uid"] and out[1]["uid"] == out[2]["uid"], out
    assert "outlived SIGKILL" in out[1]["note"], out[1]


@pytest.mark.parametrize("landlock", [True, False], ids=["landlock", "no-landlock"])
def test_a_readable_checkout_s_history_does_not_give_the_reference_away(landlock, no_landlock_profile):
    """Breach 11: on a host with a readable git checkout, the bundle and the cache were hidden, yet a learner decoded
    the checkout's .git packs and found reference.py.  Here the course is a world-readable checkout whose history
    holds a copy of the reference; the bundle is graded from it."""
    require_docker(JUDGE_IMAGE, what="REDUCED-MODE CONTAINER TESTS").close()
    script = r'''
import json, os, shutil
os.makedirs("/srv/course/.git/objects/ab", exist_ok=True)
shutil.copytree("/opt/judge/problems/sinusoidal-pe", "/srv/course/problems/sinusoidal-pe")
shutil.copy("/opt/judge/problems/sinusoidal-pe/reference.py", "/srv/course/.git/objects/ab/reference-copy.py")
for root, dirs, names in os.walk("/srv"):
    os.chmod(root, 0o755)
    for n in names:
        os.chmod(os.path.join(root, n), 0o644)
from judge import Judge
with Judge() as judge:
    v = judge.grade(open("%s", "rb").read(), "/srv/course/problems/sinusoidal-pe")
print("RESULT " + json.dumps([v.status.value, v.message[:300], v.isolation.landlock]))
''' % _in_image("runtime_error/attack_find_reference.py")
    flags = () if landlock else ("--security-opt", f"seccomp={no_landlock_profile}")
    status, message, abi = _docker_run(script, *flags, mounts=False)
    assert status == "runtime_error" and "no implementation found" in message, (status, message)
    assert (abi > 0) is landlock


def test_a_learner_that_kills_its_init_at_once_gets_a_verdict_about_itself():
    """Without a pid namespace the sandbox's init was a process of the run's uid: a learner whose first act was
    kill(-1, SIGKILL) ended it, before it had said the set-up was done (internal_error, seen once in the corpus'
    kill_parent_group) or after (its run cut short at a random call).  The init now keeps root's uid and says
    the set-up is done before the learner's process exists: kill(-1) reaches nothing, the zeros are judged, as
    in mode full, where a pid namespace's init cannot be killed from inside."""
    require_docker(JUDGE_IMAGE, what="REDUCED-MODE CONTAINER TESTS").close()
    script = r'''
import json
from judge import Judge
source = "import numpy as np\n__import__('os').kill(-1, 9)\n" \
         "def sinusoidal_pe(max_len, d_model, base=10000.0):\n    return np.zeros((max_len, d_model))\n" \
         "def add_positional_encoding(x, base=10000.0):\n    return np.zeros(np.shape(x))\n"
with Judge() as judge:
    out = [judge.grade(source).status.value for _ in range(25)]
print("RESULT " + json.dumps(out))
'''
    assert set(_docker_run(script)) == {"wrong_answer"}


def test_issue_24_attacks_one_shot_in_mode_reduced():
    """Every submission on a course platform is a cold start: each attack as its own ``judge grade`` process."""
    require_docker(JUDGE_IMAGE, what="REDUCED-MODE CONTAINER TESTS").close()
    names = ["wrong_answer/attack_steal_previous_run.py", "wrong_answer/attack_leave_leftovers.py",
             "wrong_answer/attack_unkillable_child.py", "wrong_answer/attack_quadratic_output.py",
             "wrong_answer/attack_forged_zero_size_header.py", "memory_limit_exceeded/attack_shared_memory_hog.py"]
    script = r'''
import json, subprocess, sys
out = {}
for name in sys.argv[1:]:
    r = subprocess.run(["judge", "grade", "/opt/judge/submissions/sinusoidal-pe/" + name, "--format", "json"],
                       capture_output=True, text=True)
    out[name] = json.loads(r.stdout)["status"] if r.stdout.startswith("{") else "no verdict: " + r.stderr[-300:]
print("RESULT " + json.dumps(out))
'''
    out = _docker_run(script, args=names)
    assert out == {name: name.split("/")[0] for name in names}, out
