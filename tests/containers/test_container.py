"""The container backend and the judge's image, against a real Docker engine (no mocks).

Skips loudly when no engine answers or the images are not built (.ci/docker.sh build);
under CI=true that is a failure instead.
"""

from __future__ import annotations

import os
import socket
import subprocess
import threading
from pathlib import Path

import pytest

from tests.support.common import SUBMISSIONS, roomy_problem

SANDBOX_IMAGE = os.environ.get("JUDGE_CONTAINER_IMAGE", "numpy-judge:sandbox")
JUDGE_IMAGE = os.environ.get("JUDGE_IMAGE", "numpy-judge:local")
LABEL = "numpy-judge.sandbox"
# The least privilege the judge image needs for its process-backend sandbox (README, "Docker").
IMAGE_FLAGS = ["--cap-drop", "ALL", "--cap-add", "SYS_ADMIN", "--cap-add", "SETUID", "--cap-add", "SETGID",
               "--cap-add", "DAC_OVERRIDE", "--cap-add", "KILL", "--security-opt", "seccomp=unconfined",
               "--cgroupns", "host", "-v", "/sys/fs/cgroup:/sys/fs/cgroup:rw"]
#: The examples whose verdict could depend on the backend: every attack, every file that ends its run some other
#: way than by returning (limits, crashes, refused imports), and one plain accepted and wrong answer as controls.
#: The other wrong answers differ from these only in their numbers, which the judge compares outside any backend:
#: the process backend's tiers grade each of them (judge verify), so they are not graded here twice more.
CONTROLS = ("accepted/vectorised.py", "wrong_answer/sin_cos_swapped.py", "wrong_answer/input_mutated.py")
CORPUS = sorted(p for p in SUBMISSIONS.glob("*/*.py")
                if p.name.startswith("attack_") or p.parent.name not in ("accepted", "wrong_answer")
                or f"{p.parent.name}/{p.name}" in CONTROLS)


ENGINE_IMAGES = (SANDBOX_IMAGE, JUDGE_IMAGE)  # what the engine fixture (tests/conftest.py) needs


@pytest.fixture(scope="module")
def cj(engine):
    from judge import Judge

    with Judge(backend="container", image=SANDBOX_IMAGE) as j:
        yield j


def _leftovers(engine) -> list:
    return engine.containers.list(all=True, filters={"label": LABEL})


@pytest.mark.parametrize("path", CORPUS, ids=[f"{p.parent.name}/{p.name}" for p in CORPUS])
def test_same_verdicts_as_process_backend(cj, pj, path: Path):
    source = path.read_bytes()
    by_container = cj.grade(source)
    by_process = pj.grade(source)
    if path.parent.name != "compile_error":  # refused by the static check: nothing ran
        assert by_container.isolation is not None and by_container.isolation.mode == "container"
        assert by_container.isolation.uid == 65534 and by_container.isolation.seccomp
    assert by_container.status.value == path.parent.name, by_container.message
    assert by_container.status == by_process.status, (by_container.message, by_process.message)
    assert [c.status for c in by_container.cases] == [c.status for c in by_process.cases]


def test_memory_hog_is_oom_killed_by_the_engine(cj):
    from judge.verdict import Status

    v = cj.grade((SUBMISSIONS / "memory_limit_exceeded" / "memory_hog.py").read_bytes(), roomy_problem())
    assert v.status is Status.MEMORY_LIMIT_EXCEEDED
    assert v.resources.oom_kills == 1  # from the engine's State.OOMKilled
    assert "memory limit" in v.message


def test_no_network_at_all(cj):
    """network none: only a loopback interface, and the host's loopback listener sees nothing."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(4)
    listener.settimeout(0.2)
    port = listener.getsockname()[1]
    hits: list = []
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                hits.append(listener.accept())
            except OSError:
                pass

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    source = f'''
import numpy as np

def sinusoidal_pe(max_len, d_model, base=10000.0):
    print("IFACES", sorted(line.split(":")[0].strip() for line in open("/proc/net/dev").readlines()[2:]))
    sock = __import__("sock" + "et")
    for host in ("127.0.0.1", "172.17.0.1"):
        try:
            s = sock.create_connection((host, {port}), timeout=1)
            print("CONNECTED", host)
        except OSError as exc:
            print("REFUSED", host, type(exc).__name__)
    return np.zeros((max_len, d_model))

def add_positional_encoding(x, base=10000.0):
    return np.zeros(np.shape(x))
'''
    try:
        v = cj.grade(source)
    finally:
        stop.set()
        thread.join(2)
        listener.close()
    assert not hits, "a connection reached the host's listener"
    assert "CONNECTED" not in v.stdout.text
    assert "IFACES ['lo']" in v.stdout.text, v.stdout.text[:500]


def test_learner_view_inside_the_container(cj):
    """uid 65534, read-only root, no judge data in the sandbox image, a private /tmp."""
    source = '''
import numpy as np

def sinusoidal_pe(max_len, d_model, base=10000.0):
    os = __import__("o" + "s")
    print("UID", os.getuid(), os.geteuid())
    print("OPT", os.path.exists("/opt/judge"), os.path.exists("/judge/request.json"))
    for path in ("/usr/evil", "/evil", "/judge/evil"):
        try:
            open(path, "w")
            print("WROTE", path)
        except OSError as exc:
            print("DENIED", path, exc.errno)
    open("/tmp/ok", "w").write("x")
    print("ENV", sorted(os.environ))
    return np.zeros((max_len, d_model))

def add_positional_encoding(x, base=10000.0):
    return np.zeros(np.shape(x))
'''
    v = cj.grade(source)
    out = v.stdout.text
    assert "UID 65534 65534" in out, out[:800]
    assert "OPT False True" in out
    assert "WROTE" not in out
    assert "CANARY" not in out and "TOKEN" not in out


def test_no_container_or_run_dir_left_behind(engine, cj):
    from judge.verdict import Status

    for status, name in (("runtime_error", "fork_bomb.py"), ("time_limit_exceeded", "sleep.py")):
        v = cj.grade((SUBMISSIONS / status / name).read_bytes())
        assert v.status.value == status
        assert _leftovers(engine) == []
    assert v.status is Status.TIME_LIMIT_EXCEEDED
    worker = cj._pool.queue[0]
    assert not [p for p in os.listdir(worker.run_root) if p.startswith(worker.name) and "inputs" not in p]


def test_missing_image_is_an_internal_error_not_a_crash(engine):
    from judge import Judge
    from judge.verdict import Status

    with Judge(backend="container", image="numpy-judge:no-such-tag") as j:
        v = j.grade((SUBMISSIONS / "accepted" / "vectorised.py").read_bytes())
    assert v.status is Status.INTERNAL_ERROR
    assert "not built" in v.message


def _docker(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run(["docker", *args], capture_output=True, text=True, timeout=timeout)


@pytest.mark.parametrize("example,code", [("accepted/vectorised.py", 0), ("wrong_answer/transposed.py", 1),
                                          ("time_limit_exceeded/infinite_loop.py", 1)])
def test_image_grades_the_examples(engine, example: str, code: int):
    r = _docker("run", "--rm", *IMAGE_FLAGS, JUDGE_IMAGE, "grade", "--format", "json",
                f"/opt/judge/submissions/sinusoidal-pe/{example}")
    assert r.returncode == code, r.stdout[-2000:] + r.stderr[-2000:]
    import json

    verdict = json.loads(r.stdout)
    assert verdict["status"] == example.split("/")[0]
    assert verdict["isolation"]["mode"] == "full"


def test_image_doctor_all_ok_with_documented_flags(engine):
    r = _docker("run", "--rm", *IMAGE_FLAGS, JUDGE_IMAGE, "doctor")
    assert r.returncode == 0, r.stdout + r.stderr
    capabilities = r.stdout.split("\nisolation ladder")[0]
    assert "NO " not in capabilities and "\nisolation: full" in r.stdout, r.stdout


def test_image_without_flags_uses_reduced_mode_and_min_isolation_refuses_it(engine):
    """A default `docker run` (root, Docker's capabilities and seccomp profile): mode reduced,
    unless JUDGE_MIN_ISOLATION asks for more, which is then a clear refusal (exit 2)."""
    r = _docker("run", "--rm", JUDGE_IMAGE, "grade", "--format", "json",
                "/opt/judge/submissions/sinusoidal-pe/accepted/vectorised.py")
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    import json

    assert json.loads(r.stdout)["isolation"]["mode"] == "reduced"
    r = _docker("run", "--rm", "-e", "JUDGE_MIN_ISOLATION=full", JUDGE_IMAGE, "grade",
                "/opt/judge/submissions/sinusoidal-pe/accepted/vectorised.py")
    assert r.returncode == 2 and "weaker than JUDGE_MIN_ISOLATION=full" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr


def test_problems_are_outside_what_the_sandbox_binds(engine):
    r = _docker("run", "--rm", "--entrypoint", "python3", JUDGE_IMAGE, "-c",
                "import os, sysconfig, numpy, judge.problem.loader as l; "
                "print(l.PROBLEMS_DIR, sysconfig.get_paths()['stdlib'], os.path.dirname(numpy.__file__), "
                "oct(os.stat('/opt/judge').st_mode & 0o777))")
    problems, stdlib, numpy_dir, mode = r.stdout.split()
    assert problems == "/opt/judge/problems"
    assert not problems.startswith(("/usr/", stdlib, numpy_dir))
    assert mode == "0o700"
