"""Every attack of the corpus, on every isolation mode this machine gives, against the real sandbox.

For each attack file (every ``submissions/sinusoidal-pe/*/attack_*.py`` plus the older
attack examples named in ``OLDER_ATTACKS``) and each mode (full, rootless, reduced,
container; never none, where an attack's kill(-1) would reach the judge's own user), the
test grades it with a judge whose own environment holds a canary secret.  What it expects
comes from the guarantee table (judge.sandbox.modes.guarantees, the README's table): each attack
names the harm it tries (``# harm: <id>``), the table says which row stops it; where the
mode enforces that row:

- a verdict came back, with the status of the file's folder;
- the judge is alive and still accepts ``accepted/vectorised.py`` afterwards;
- no file under ``problems/`` changed (sha256 of each before and after), and no file
  carrying the attack's marker appeared in the host's /tmp, /, /var/tmp or /dev/shm;
- a TCP listener the test holds on the host's 127.0.0.1 got no connection;
- no process of the attack is left on the host: process backend, no uid-65534 process of
  this judge's worker and only the zygote in the worker's cgroup; container backend, no
  container with this client's label and no uid-65534 process in its cgroup parent;
- the canary appears nowhere in ``verdict.model_dump_json()``.

Where the mode does not enforce the row (reduced: the file system), the verdict must say so
(``isolation.not_enforced``) and the judge must survive; every other check above still holds.

The container backend skips loudly when no Docker engine or image is available (start one
with ``.ci/docker.sh build``); under CI=true that is a failure instead.  Two inputs that are
not learner files (a 50 MB source, non-UTF-8 source) and a cross-sandbox signal test close
the module.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import socket
import threading
import time
from pathlib import Path

import pytest

from tests.support.common import require_docker, roomy_problem
from tests.support.sandbox import (
    CORRECT,
    NOBODY,
    REPO,
    SUBMISSIONS,
    cgroup_pids,
    leftover_learner_processes,
    nobody_processes,
    require_mode,
    worker_name,
)

SANDBOX_IMAGE = os.environ.get("JUDGE_CONTAINER_IMAGE", "numpy-judge:sandbox")
LABEL = "numpy-judge.sandbox"
PROBLEMS = REPO / "problems"
BACKENDS = ["full", "rootless", "reduced", "container"]  # isolation modes; none runs no attack

# Attack examples that predate the attack_*.py naming.
OLDER_ATTACKS = [
    "runtime_error/read_host_files.py", "runtime_error/network.py", "runtime_error/fork_bomb.py",
    "runtime_error/self_kill.py", "runtime_error/deep_recursion.py", "runtime_error/os_exit.py",
    "wrong_answer/forge_output.py", "wrong_answer/monkeypatch_numpy.py", "wrong_answer/ndarray_subclass_lies.py",
    "time_limit_exceeded/sleep.py", "memory_limit_exceeded/memory_hog.py",
]
ATTACKS = sorted(SUBMISSIONS.glob("*/attack_*.py")) + [SUBMISSIONS / p for p in OLDER_ATTACKS]
# Names an attack leaves on files it manages to create (attack_write_bundle writes its private /tmp).
MARKERS = ("numpy-judge-attack",)
HOST_DIRS = ("/tmp", "/", "/var/tmp", "/dev/shm")
NETWORK_PORT = 8080  # what runtime_error/network.py dials; the listener takes it when it is free


def harm(path: Path) -> str:
    """The harm an attack tries: its ``# harm: <id>`` line, or (older files) its name."""
    for line in path.read_text().splitlines():
        if line.startswith("# harm: "):
            return line.split(":", 1)[1].strip()
    return path.stem


def test_corpus_is_complete():
    from judge.sandbox.modes.guarantees import HARM_ROWS

    assert len(list(SUBMISSIONS.glob("*/attack_*.py"))) >= 11
    for path in ATTACKS:
        assert path.is_file(), path
        assert harm(path) in HARM_ROWS, f"{path.name}: harm {harm(path)!r} has no row in the guarantee table"
    for path in SUBMISSIONS.glob("*/attack_*.py"):
        text = path.read_text()
        assert text.startswith('"""'), f"{path.name}: starts with a docstring saying the harm it tries"
        assert "\n# harm: " in text, f"{path.name}: has a '# harm: <id>' line"


# --------------------------------------------------------------------------- fixtures

def _require_engine():
    return require_docker(SANDBOX_IMAGE, what="CONTAINER ATTACK TESTS")


@pytest.fixture(scope="module")
def canary():
    """A secret in the judge's own environment, set before any judge or worker starts."""
    token = "canary-" + secrets.token_hex(16)
    old = os.environ.get("JUDGE_CANARY")
    os.environ["JUDGE_CANARY"] = token
    yield token
    if old is None:
        os.environ.pop("JUDGE_CANARY", None)
    else:
        os.environ["JUDGE_CANARY"] = old


def make_judge(mode: str, workers: int = 1):
    from judge import Judge

    if mode == "container":
        _require_engine().close()
        return Judge(workers=workers, backend="container", image=SANDBOX_IMAGE)
    require_mode(mode)
    return Judge(workers=workers, isolation=mode)


@pytest.fixture(scope="module")
def mode_judges(canary):
    """mode -> a Judge made lazily (so a mode the machine lacks skips only its tests)."""
    made: dict = {}
    engines: list = []

    def get(backend: str):
        backend = "full" if backend == "process" else backend
        if backend not in made:
            if backend == "container":
                engines.append(_require_engine())
            made[backend] = make_judge(backend)
            made[backend].warm_up()
        return made[backend]

    get.engine = lambda: engines[0]  # type: ignore[attr-defined]
    yield get
    for judge in made.values():
        judge.close()
    for engine in engines:
        engine.close()


class _Listener:
    """A TCP listener on the host's 127.0.0.1 that counts every connection it accepts."""

    def __init__(self) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            self.sock.bind(("127.0.0.1", NETWORK_PORT))
        except OSError:
            self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.sock.listen(16)
        self.sock.settimeout(0.05)
        self.contacts = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self.contacts += 1
            conn.close()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(2)
        self.sock.close()


@pytest.fixture(scope="module")
def listener():
    ears = _Listener()
    yield ears
    ears.close()


# --------------------------------------------------------------------------- checks

def _tree_digest(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def _marked(markers: tuple[str, ...]) -> set[str]:
    found = set()
    for folder in HOST_DIRS:
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        found.update(os.path.join(folder, n) for n in names if any(m in n for m in markers))
    return found


def _still_accepts(judge) -> None:
    from judge.verdict import Status

    v = judge.grade(CORRECT)
    assert v.status is Status.ACCEPTED, (v.status, v.message)
    assert v.score == 1.0


def _workers(judge) -> list:
    return list(judge._pool.queue)


def _process_leftovers(judge, verdict) -> None:
    assert all(z.alive() for z in _workers(judge)), "a zygote died"
    if verdict.isolation.mode == "full":
        name = worker_name(verdict)
        assert leftover_learner_processes(name) == []
        assert len(cgroup_pids(verdict)) == 1, cgroup_pids(verdict)  # only the zygote stays in the worker's group
        return
    from judge.sandbox.chain.watch import process_tree

    for zygote in _workers(judge):  # every process of a run descends from its zygote (a subreaper)
        assert process_tree(zygote.pid) == [zygote.pid], process_tree(zygote.pid)
    if verdict.isolation.mode == "reduced":
        from tests.support.sandbox import _proc_uid

        mine = [p for p in os.listdir("/proc") if p.isdigit() and _proc_uid(p) == verdict.isolation.uid]
        assert mine == [], mine


def _container_leftovers(judge, engine) -> None:
    for client in _workers(judge):
        left = engine.containers.list(all=True, filters={"label": f"{LABEL}={client.name}"})
        assert left == [], [c.name for c in left]
        deadline = time.monotonic() + 3
        while True:
            ours = [p for p in nobody_processes() if client.name in p[2]]
            if not ours or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        assert ours == [], ours
        run_dirs = [p for p in os.listdir(client.run_root) if p.startswith(client.name) and "inputs" not in p]
        assert run_dirs == [], run_dirs


def _source(path: Path, listener: _Listener) -> bytes:
    data = path.read_bytes()
    if path.name == "network.py" and listener.port != NETWORK_PORT:
        data = data.replace(b"8080", str(listener.port).encode())  # dial the test's listener
    return data


# --------------------------------------------------------------------------- the corpus

@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("path", ATTACKS, ids=[f"{p.parent.name}/{p.name}" for p in ATTACKS])
def test_attack_does_no_harm(path: Path, backend: str, mode_judges, canary: str, listener: _Listener):
    from judge.sandbox.modes import mode_named
    from judge.sandbox.modes.guarantees import HARM_ROWS

    judge = mode_judges(backend)
    source = _source(path, listener)
    markers = MARKERS + (path.stem,) if path.stem.startswith("attack_") else MARKERS
    problems_before = _tree_digest(PROBLEMS)
    marked_before = _marked(markers)
    contacts_before = listener.contacts
    row = HARM_ROWS[harm(path)]

    # a verdict about memory gets wall time enough to reach the memory limit (tests/support/common.py: roomy_problem)
    v = judge.grade(source, roomy_problem() if path.parent.name == "memory_limit_exceeded" else "sinusoidal-pe")

    assert v.isolation is not None and v.isolation.mode == backend
    cells = mode_named(backend).cells(landlock=v.isolation.landlock > 0)
    if row is None or cells[row].enforced:
        assert v.status.value == path.parent.name, (v.status, v.message[:500])
    else:  # the table says this mode cannot stop the harm: the verdict must say so
        assert row in v.isolation.not_enforced, (row, v.isolation)
    if backend == "reduced":
        assert v.isolation.uid not in (None, 0, NOBODY), v.isolation  # a uid of its own
    else:
        assert v.isolation.uid == NOBODY
    assert canary not in v.model_dump_json(), "the judge's secret reached the verdict"
    if backend != "container":
        _process_leftovers(judge, v)
    else:
        _container_leftovers(judge, mode_judges.engine())
    _still_accepts(judge)
    assert _tree_digest(PROBLEMS) == problems_before, "a file under problems/ changed"
    assert _marked(markers) - marked_before == set(), "the attack created a file on the host"
    time.sleep(0.05)  # let the listener's thread notice a late connection
    assert listener.contacts == contacts_before, "a connection reached the host's listener"
    if backend != "container":
        _process_leftovers(judge, v)


def test_attack_outputs_say_nothing_was_reached(mode_judges, listener: _Listener):
    """What the attacks report about themselves (process backend): nothing found, read or written."""
    judge = mode_judges("process")
    checks = {
        "runtime_error/attack_find_reference.py": ("no implementation found", "STOLEN"),
        "runtime_error/attack_environ.py": ("nothing secret found", "SECRETS"),
        "runtime_error/attack_write_bundle.py": ("wrote 0,", "WROTE"),
        "runtime_error/attack_introspection_escape.py": ("open /etc/passwd: FileNotFoundError", "READ "),
    }
    huge = judge.grade((SUBMISSIONS / "runtime_error/attack_billion_elements.py").read_bytes())
    adds = [c for c in huge.cases if c.function == "add_positional_encoding"]
    assert adds and all(c.status.value == "wrong_answer" and "shape (1000000000,)" in c.message for c in adds)
    assert huge.resources.memory_peak_bytes is None or huge.resources.memory_peak_bytes < 256 << 20
    reference = (PROBLEMS / "sinusoidal-pe" / "reference.py").read_text()
    for rel, (said, never) in checks.items():
        v = judge.grade((SUBMISSIONS / rel).read_bytes())
        assert said in v.message, (rel, v.message[:500])
        assert never not in v.stdout.text, (rel, v.stdout.text[:500])
        assert "np.power(float(base), exponents)" not in v.model_dump_json()
        assert reference[:200] not in v.model_dump_json()


# --------------------------------------------------------------------------- inputs that are not learner files

@pytest.mark.parametrize("backend", BACKENDS)
def test_50mb_source_is_refused_quickly(backend: str, mode_judges, canary: str):
    from judge.verdict import Status

    judge = mode_judges(backend)
    body = CORRECT.encode() + b"\n# padding\n" + (b"#" * 79 + b"\n") * ((50 << 20) // 80)
    assert len(body) >= 50 << 20
    for source in (body, body.decode()):
        started = time.monotonic()
        v = judge.grade(source)
        assert time.monotonic() - started < 5
        assert v.status is Status.COMPILE_ERROR, (v.status, v.message)
        assert "the limit is 262144 bytes" in v.message
        assert canary not in v.model_dump_json()
        assert len(v.model_dump_json()) < 4096  # the source is not echoed back
    _still_accepts(judge)


@pytest.mark.parametrize("backend", BACKENDS)
def test_non_utf8_source_is_refused(backend: str, mode_judges, canary: str):
    from judge.verdict import Status

    judge = mode_judges(backend)
    latin1 = ("# caf\u00e9: encoded as latin-1, not UTF-8\n" + CORRECT).encode("latin-1")
    v = judge.grade(latin1)
    assert v.status is Status.COMPILE_ERROR, (v.status, v.message)
    assert "not valid UTF-8" in v.message and "line 1" in v.message
    binary = b"\xff\xfe\x00\x00" + os.urandom(4096)
    v = judge.grade(binary)
    assert v.status is Status.COMPILE_ERROR
    # a str holding a lone surrogate (bytes decoded with surrogateescape somewhere upstream)
    v = judge.grade("# \udcff\n" + CORRECT)
    assert v.status is Status.COMPILE_ERROR, (v.status, v.message)
    _still_accepts(judge)


# --------------------------------------------------------------------------- one sandbox against another

_VICTIM = CORRECT.replace("def sinusoidal_pe(max_len, d_model, base=10000.0):\n",
                          "def sinusoidal_pe(max_len, d_model, base=10000.0):\n"
                          "    __import__('time').sleep(0.25)\n", 1)
_KILLER = '''
import numpy as np
_os = __import__("o" + "s")
_signal = __import__("sig" + "nal")
_time = __import__("time")


_DONE = []


def sinusoidal_pe(max_len, d_model, base=10000.0):
    _signal.signal(_signal.SIGTERM, _signal.SIG_IGN)  # survive its own group signal
    for _ in range(0 if _DONE else 50):
        for fn in (lambda: _os.killpg(0, _signal.SIGTERM), lambda: _os.kill(-1, _signal.SIGTERM)):
            try:
                fn()
            except OSError:
                pass
        _time.sleep(0.02)
    _DONE.append(1)
    return np.zeros((max_len, d_model))


def add_positional_encoding(x, base=10000.0):
    return np.zeros(np.shape(x))
'''


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_sandbox_cannot_signal_another_sandbox(backend: str, canary: str):
    """killpg(0) and kill(-1) from one submission never reach another one judged at the same time.

    Both learners run as uid 65534; kill(-1) is limited by the pid namespace, but killpg is not, so
    each sandbox needs a process group (session) of its own."""
    from judge.verdict import Status

    judge = make_judge(backend, workers=2)
    with judge:
        judge.warm_up()
        got: dict = {}
        victim = threading.Thread(target=lambda: got.setdefault("victim", judge.grade(_VICTIM)))
        victim.start()
        time.sleep(1.0 if backend == "container" else 0.3)
        killer = judge.grade(_KILLER)
        victim.join(60)
        assert killer.status is Status.WRONG_ANSWER, (killer.status, killer.message)
        assert got["victim"].status is Status.ACCEPTED, (got["victim"].status, got["victim"].message)


# --------------------------------------------------------------------------- one-shot: every run a cold start

#: The cross-run attacks, also graded as platforms grade every submission: a fresh ``judge grade`` process each.
ONE_SHOT = sorted(p for p in SUBMISSIONS.glob("*/attack_*.py") if harm(p) in (
    "read_other_submission", "leave_leftovers", "hide_memory", "stall_the_judge", "crash_the_judge"))


@pytest.mark.parametrize("backend", ["full", "rootless", "container"])
@pytest.mark.parametrize("path", ONE_SHOT, ids=[f"{p.parent.name}/{p.name}" for p in ONE_SHOT])
def test_attack_one_shot(path: Path, backend: str, canary: str):
    import json
    import subprocess
    import sys

    if backend == "container":
        _require_engine().close()
        flags = ["--backend", "container", "--image", SANDBOX_IMAGE]
    else:
        require_mode(backend)
        flags = ["--isolation", backend]
    r = subprocess.run([sys.executable, "-m", "judge", "grade", str(path), "--format", "json", *flags],
                       capture_output=True, text=True, timeout=300, cwd=REPO)
    assert r.stdout.startswith("{"), r.stderr[-2000:]
    verdict = json.loads(r.stdout)
    assert verdict["status"] == path.parent.name, (verdict["status"], verdict["message"][:500])
    assert verdict["isolation"]["mode"] == backend and canary not in r.stdout
