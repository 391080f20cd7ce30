"""Mode reduced where it is meant to run: the judge image under a default `docker run`.

Root in the container with Docker's default capabilities and seccomp profile and nothing
added -- how Gradescope, PrairieLearn and Exercism run graders: namespaces are refused and
cgroups are read-only, so the judge must choose mode reduced by itself.  Every example
submission (the attack files included) must get its folder's verdict, each verdict must say
isolation.mode == "reduced" and list what the mode does not enforce (the guarantee table),
and a canary secret in the judge's environment must reach no verdict.
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess

import pytest

from conftest import SUBMISSIONS, require_docker

pytestmark = [pytest.mark.container, pytest.mark.sandbox]
JUDGE_IMAGE = os.environ.get("JUDGE_IMAGE", "numpy-judge:local")

# Time limits are scaled by the judge's own JUDGE_TIME_SCALE (judge/timescale.py), passed into the
# container: a loaded 2-core machine can stretch a 1 s call past the bundle's 4 s per-case limit.
TIME_SCALE = os.environ.get("JUDGE_TIME_SCALE") or "2"

# Runs inside the container: grades every example with the mode the judge chooses by itself, against a
# copy of the bundle (in world-writable /tmp, so the ACL that hides it from the sandbox uid is exercised).
_GRADE_ALL = r'''
import json, pathlib, shutil
from judge import Judge
bundle = pathlib.Path("/tmp/bundles/sinusoidal-pe")
shutil.copytree("/opt/judge/problems/sinusoidal-pe", bundle)
root = pathlib.Path("/opt/judge/submissions/sinusoidal-pe")
with Judge() as judge:
    for path in sorted(root.glob("*/*.py")):
        v = judge.grade(path.read_bytes(), str(bundle))
        print(json.dumps({"file": f"{path.parent.name}/{path.name}", "status": v.status.value,
                          "isolation": v.isolation.model_dump() if v.isolation else None,
                          "verdict": v.model_dump_json()}), flush=True)
'''


@pytest.fixture(scope="module")
def graded():
    require_docker(JUDGE_IMAGE, what="REDUCED-MODE CONTAINER TESTS").close()
    canary = "canary-" + secrets.token_hex(12)
    r = subprocess.run(["docker", "run", "--rm", "-e", f"JUDGE_CANARY={canary}", "-e", f"JUDGE_TIME_SCALE={TIME_SCALE}",
                        "--entrypoint", "python3", JUDGE_IMAGE, "-c", _GRADE_ALL],
                       capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stderr[-3000:]
    rows = [json.loads(line) for line in r.stdout.splitlines() if line.startswith("{")]
    return canary, {row["file"]: row for row in rows}


def test_every_example_gets_its_folder_verdict_in_mode_reduced(graded):
    from judge.sandbox import guarantees

    canary, rows = graded
    expected = {f"{p.parent.name}/{p.name}" for p in SUBMISSIONS.glob("*/*.py")}
    assert set(rows) == expected
    wrong = {f: r["status"] for f, r in rows.items() if r["status"] != f.split("/")[0]}
    assert wrong == {}, wrong
    for row in rows.values():
        assert canary not in row["verdict"], row["file"]
        if row["status"] == "compile_error":
            continue  # refused before any sandbox ran: no isolation to report
        isolation = row["isolation"]
        assert isolation["mode"] == "reduced" and isolation["limits_by"] == "rlimits", isolation
        assert isolation["not_enforced"] == guarantees.not_enforced("reduced")
        assert isolation["uid"] not in (0, None)


def test_memory_hogs_are_memory_limit_exceeded_from_kernel_records(graded):
    _, rows = graded
    for name in ("memory_hog.py", "catch_memoryerror_and_continue.py", "python_bytes_hog.py"):
        verdict = json.loads(rows[f"memory_limit_exceeded/{name}"]["verdict"])
        assert verdict["resources"]["oom_kills"] >= 1 or "RLIMIT_AS" in verdict["message"], verdict["message"]


# --------------------------------------------------------------------------- issue 24: one run, the next run

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
sys.path.insert(0, "/tests")
from cross_run_support import attacker, control, findings, process_memory_holds, victim
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


def _docker_run(script: str, *flags: str, timeout: int = 600) -> dict:
    tests = os.path.dirname(os.path.abspath(__file__))
    r = subprocess.run(["docker", "run", "--rm", "-v", f"{tests}:/tests:ro", "-v",
                        f"{os.path.dirname(tests)}/submissions:/submissions:ro", "-e", f"JUDGE_TIME_SCALE={TIME_SCALE}",
                        *flags, "--entrypoint", "python3", JUDGE_IMAGE, "-c", script],
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
