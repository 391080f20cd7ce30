"""Real processes for the service tests: `judge serve`, `judge worker`, redis-server, PostgreSQL,
and a callback listener on loopback.  Every process is started here and stopped by its pid.

A test that needs a binary that is missing skips with a loud reason, and fails when CI=true.
"""

from __future__ import annotations

import glob
import http.server
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

import httpx

from tests.support.common import REPO, SUBMISSIONS, require_sandbox, unavailable
from tests.support.tiers import needs

SOURCES = {
    "accepted": (SUBMISSIONS / "accepted" / "vectorised.py").read_text(),
    "accepted2": (SUBMISSIONS / "accepted" / "einsum_or_outer.py").read_text(),
    "wrong_answer": (SUBMISSIONS / "wrong_answer" / "sin_cos_swapped.py").read_text(),
    "compile_error": (SUBMISSIONS / "compile_error" / "syntax_error.py").read_text(),
    "time_limit_exceeded": (SUBMISSIONS / "time_limit_exceeded" / "infinite_loop.py").read_text(),
}


def missing(what: str) -> None:
    unavailable(f"{what} NOT AVAILABLE, TEST NOT RUN (run .ci/services.sh)")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(predicate, timeout: float, interval: float = 0.05, what: str = "condition"):  # noqa: ANN001, ANN201
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(interval)


def _stop(proc: subprocess.Popen, sig: int = signal.SIGTERM, timeout: float = 10) -> None:
    if proc.poll() is not None:
        return
    proc.send_signal(sig)
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=10)


class Process:
    """A child process with its output in a log file."""

    def __init__(self, args: list[str], env: dict, log: Path, cwd: Path) -> None:
        self.log_path = log
        self._log = open(log, "wb")
        self.proc = subprocess.Popen(args, env=env, cwd=cwd, stdout=self._log, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL)

    @property
    def pid(self) -> int:
        return self.proc.pid

    def output(self) -> str:
        return self.log_path.read_text(errors="replace")

    def kill(self) -> None:
        """SIGKILL, as a crash or the OOM killer would."""
        self.proc.kill()
        self.proc.wait(timeout=10)
        self._log.close()

    def stop(self) -> None:
        _stop(self.proc)
        self._log.close()


def service_env(**extra: str) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("JUDGE_")}
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    env["JUDGE_RATE_LIMIT"] = "1000:10000"
    # the tests' callback listeners are on loopback, which callbacks may not reach unless allowed (as an
    # operator allows a platform on a private network); a test of the default sets this to ""
    env["JUDGE_CALLBACK_ALLOW_NETWORKS"] = "127.0.0.0/8"
    env.update(extra)
    return env


@needs("service")
class Server(Process):
    def __init__(self, workdir: Path, db_url: str, env: dict, broker: str | None = None, workers: int = 2,
                 name: str = "server") -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        args = [sys.executable, "-m", "judge.cli", "serve", "--port", str(self.port), "--db", db_url,
                "--workers", str(workers)]
        if broker:
            args += ["--broker", broker]
        super().__init__(args, env, workdir / f"{name}-{self.port}.log", workdir)
        self.wait_ready()

    def wait_ready(self, timeout: float = 60) -> None:
        def ready() -> bool:
            if self.proc.poll() is not None:
                raise AssertionError(f"judge serve exited {self.proc.returncode}:\n{self.output()}")
            try:
                return httpx.get(self.url + "/healthz", timeout=2).status_code == 200
            except httpx.HTTPError:
                return False
        wait_for(ready, timeout, 0.1, "judge serve to answer /healthz")

    def client(self, token: str | None) -> httpx.Client:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=60)


@needs("service")
class Worker(Process):
    def __init__(self, workdir: Path, name: str, broker: str, db_url: str, env: dict, concurrency: int = 1) -> None:
        self.name = f"{name}@judge-test"
        args = [sys.executable, "-m", "judge.cli", "worker", "--broker", broker, "--db", db_url,
                "-c", str(concurrency), "-n", self.name, "--log-level", "info"]
        super().__init__(args, env, workdir / f"worker-{name}.log", workdir)
        wait_for(lambda: self._ready(), 60, 0.1, f"worker {name} to be ready")

    def _ready(self) -> bool:
        if self.proc.poll() is not None:
            raise AssertionError(f"judge worker exited {self.proc.returncode}:\n{self.output()}")
        return " ready." in self.output()


def submit_batch(client: httpx.Client, sources: list[str], callback: str | None = None,
                 problem: str = "sinusoidal-pe") -> list[str]:
    """Submit ``sources`` in one batch (with ``callback`` as each one's callback URL); their ids, in order."""
    items = [{"problem": problem, "source": s, **({"callback_url": callback} if callback else {})} for s in sources]
    answer = client.post("/v1/submissions/batch", json={"submissions": items})
    assert answer.status_code == 202, answer.text
    return [s["id"] for s in answer.json()["submissions"]]


def list_pages(client: httpx.Client, **params: object) -> tuple[list[dict], list[str]]:
    """Every item of a token's ``GET /v1/submissions``, page after page: (items, the cursors it was given)."""
    items: list[dict] = []
    cursors: list[str] = []
    while True:
        page = client.get("/v1/submissions", params=params)  # type: ignore[arg-type]
        assert page.status_code == 200, page.text
        body = page.json()
        items += body["submissions"]
        if body["next_cursor"] is None:
            return items, cursors
        cursors.append(body["next_cursor"])
        params = {**params, "cursor": body["next_cursor"]}


def wait_done(client: httpx.Client, ids: list[str], timeout: float) -> dict[str, dict]:
    done: dict[str, dict] = {}

    def all_done() -> bool:
        for sub_id in ids:
            if sub_id not in done:
                body = client.get(f"/v1/submissions/{sub_id}").json()
                if body["state"] == "done":
                    done[sub_id] = body
        return len(done) == len(ids)
    wait_for(all_done, timeout, 0.2, f"{len(ids)} verdicts")
    return done


# -- redis ---------------------------------------------------------------------------
@needs("service")
class Redis:
    """``acl``: the text of an ACL file (Redis users); without it, one user that may do anything."""

    def __init__(self, acl: str | None = None) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            missing("redis-server")
        self.port = free_port()
        self.dir = tempfile.mkdtemp(prefix="judge-redis-")
        extra = []
        if acl is not None:
            Path(self.dir, "users.acl").write_text(acl)
            extra = ["--aclfile", str(Path(self.dir, "users.acl"))]
        self.proc = subprocess.Popen([binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
                                      "--appendonly", "no", "--dir", self.dir, *extra],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.url = f"redis://127.0.0.1:{self.port}/0"

        def up() -> bool:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1) as s:
                    s.sendall(b"PING\r\n")
                    return s.recv(16).startswith(b"+PONG")
            except OSError:
                return False
        wait_for(up, 20, 0.05, "redis-server")

    def stop(self) -> None:
        _stop(self.proc)
        shutil.rmtree(self.dir, ignore_errors=True)


# -- postgres --------------------------------------------------------------------------
def _pg_bin(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    return candidates[-1] if candidates else None


@needs("service")
class Postgres:
    """A private PostgreSQL cluster in a temporary folder, run as user postgres (it refuses root)."""

    def __init__(self) -> None:
        initdb, postgres = _pg_bin("initdb"), _pg_bin("postgres")
        if initdb is None or postgres is None:
            missing("PostgreSQL (initdb, postgres)")
        import pwd

        try:
            user = pwd.getpwnam("postgres")
        except KeyError:
            missing("the postgres user")
        self.root = tempfile.mkdtemp(prefix="judge-pg-")
        os.chown(self.root, user.pw_uid, user.pw_gid)
        data, sock = os.path.join(self.root, "data"), os.path.join(self.root, "sock")
        as_pg = {"user": user.pw_uid, "group": user.pw_gid, "extra_groups": []}
        os.mkdir(sock)
        os.chown(sock, user.pw_uid, user.pw_gid)
        subprocess.run([initdb, "-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"],
                       check=True, capture_output=True, cwd=self.root, **as_pg)
        self.port = free_port()
        self.log = open(os.path.join(self.root, "log"), "wb")
        self.proc = subprocess.Popen([postgres, "-D", data, "-k", sock, "-p", str(self.port), "-h", "127.0.0.1",
                                      "-c", "fsync=off", "-c", "max_connections=200"],
                                     stdout=self.log, stderr=subprocess.STDOUT, cwd=self.root, **as_pg)
        self.url = f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/postgres"

        def up() -> bool:
            if self.proc.poll() is not None:
                raise AssertionError("postgres exited: " + Path(self.root, "log").read_text())
            try:
                import psycopg

                psycopg.connect(f"host=127.0.0.1 port={self.port} user=postgres dbname=postgres",
                                connect_timeout=1).close()
                return True
            except Exception:  # noqa: BLE001
                return False
        wait_for(up, 30, 0.1, "postgres")
        self._n = 0

    def new_database(self) -> str:
        import psycopg

        self._n += 1
        name = f"judge_{os.getpid()}_{self._n}"
        with psycopg.connect(f"host=127.0.0.1 port={self.port} user=postgres dbname=postgres",
                             autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name}")
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{name}"

    def stop(self) -> None:
        _stop(self.proc, signal.SIGINT)  # fast shutdown
        self.log.close()
        shutil.rmtree(self.root, ignore_errors=True)


# -- callbacks ---------------------------------------------------------------------------
class CallbackListener:
    """An HTTP server on loopback recording each POST; the first ``fail_first`` per id get a 500.  With
    ``hold_first``, the first POST is held (recorded when it arrives, answered) only after :meth:`release`:
    a delivery in flight."""

    def __init__(self, fail_first: int = 0, hold_first: bool = False) -> None:
        self.received: list[dict] = []
        self.fail_first = fail_first
        self.holding = threading.Event()  # set while the first POST is held
        self._gate = threading.Event()
        self._hold = hold_first
        self._per_id: dict[str, int] = {}
        self._lock = threading.Lock()
        listener = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                sub_id = self.headers.get("X-Judge-Submission", "")
                arrived = time.time()
                with listener._lock:
                    hold, listener._hold = listener._hold, False
                if hold:
                    listener.holding.set()
                    listener._gate.wait(120)
                with listener._lock:
                    n = listener._per_id[sub_id] = listener._per_id.get(sub_id, 0) + 1
                    failed = n <= listener.fail_first
                    listener.received.append({"path": self.path, "headers": dict(self.headers), "body": body,
                                              "failed": failed, "at": arrived, "answered": time.time()})
                self.send_response(500 if failed else 204)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args) -> None:  # noqa: ANN002
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def delivered(self) -> dict[str, list[dict]]:
        out: dict[str, list[dict]] = {}
        with self._lock:
            for r in self.received:
                if not r["failed"]:
                    out.setdefault(r["headers"].get("X-Judge-Submission"), []).append(r)
        return out

    def release(self) -> None:
        self._gate.set()

    def stop(self) -> None:
        self._gate.set()
        self.server.shutdown()
        self.server.server_close()


def body_json(record: dict) -> dict:
    return json.loads(record["body"])


__all__ = ["SOURCES", "Server", "Worker", "Redis", "Postgres", "CallbackListener", "wait_for", "wait_done",
           "service_env", "free_port", "missing", "require_sandbox", "body_json", "submit_batch"]


def _replicate(db: str, ids: list[str], copies: int) -> list[str]:
    """More stored submissions like these (a course's worth): rows copied in the store with new ids."""
    from sqlalchemy import insert, select

    from judge.service.db.schema import submissions
    from judge.service.store import Store

    store = Store(db)
    made = []
    with store._write() as conn:
        rows = sorted((dict(r) for r in conn.execute(select(submissions).where(submissions.c.id.in_(ids)))
                       .mappings()), key=lambda r: ids.index(r["id"]))
        batch = []
        for k in range(copies):
            for row in rows:
                new_id = uuid.uuid4().hex
                batch.append({**row, "id": new_id, "idempotency_key": None, "callback_url": None,
                              "callback_state": "none", "created_at": row["created_at"] + k})
                made.append(new_id)
        conn.execute(insert(submissions), batch)
    store.close()
    return made
