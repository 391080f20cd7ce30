"""deploy/compose.yaml for real: the API, two workers, Redis and PostgreSQL on the Docker engine.

`docker-compose up -d --scale worker=2` (Debian's Compose v1.29) with the registry-less stand-ins for the official
redis and postgres images (.ci/docker.sh deploy builds them and numpy-judge:service), with compose.lti.yaml (a
platforms file and the tool's private key for the API).  First, least privilege, tried from inside a worker
container as a sandbox escape would: none of the API's secrets is in its environment, command or files; it
has no route to the API or out; its database role is refused the learner side's tables, the bundle store, the
callback URLs, DDL and the server's programs; its Redis user is refused admin commands and other keys.  Then
through the API on a loopback port: an accepted file and a wrong answer get their statuses, and every verdict
says the isolation the compose file documents for its unprivileged workers (mode reduced); then the worker
running a long job (an infinite loop, cut at the bundle's per-call wall limit) is killed with `docker kill`, and
the job still ends with one verdict, stored by the other worker once the broker hands the unacknowledged task
back (JUDGE_VISIBILITY_TIMEOUT).  The project is always taken down with its volumes.  The figures measured (time
to come up, time from the kill to the verdict) are written to test-artifacts/deploy-compose/figures.json.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.support.common import REPO, SUBMISSIONS, require_docker, unavailable

COMPOSE_FILE = REPO / "deploy" / "compose.yaml"
COMPOSE_LTI = REPO / "deploy" / "compose.lti.yaml"
SERVICE_IMAGE = os.environ.get("JUDGE_SERVICE_IMAGE", "numpy-judge:service")
REDIS_IMAGE = os.environ.get("JUDGE_STANDIN_REDIS", "judge-standin-redis:bookworm")
POSTGRES_IMAGE = os.environ.get("JUDGE_STANDIN_POSTGRES", "judge-standin-postgres:bookworm")
ARTIFACTS = Path(os.environ.get("JUDGE_TEST_ARTIFACTS") or REPO / "test-artifacts") / "deploy-compose"
#: As tests/containers/test_reduced_container.py: a loaded 2-core machine may stretch a call past the bundle's limit.
TIME_SCALE = os.environ.get("JUDGE_TIME_SCALE") or "2"
#: Above the infinite loop's job (the bundle's 4 s per call x TIME_SCALE), so a live worker's job is never
#: handed out twice; small, so the killed worker's job comes back soon.
VISIBILITY_TIMEOUT = 15
RESTORE_INTERVAL = 2
SANDBOX_UIDS = 1 << 24  # mode reduced draws each sandbox's uid above 2^24


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Stack:
    """One compose project: its environment, its commands, its API."""

    def __init__(self, lti_dir: Path) -> None:
        self.project = "judgetest" + secrets.token_hex(4)
        self.token = secrets.token_hex(16)
        self.port = _free_port()
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("COMPOSE_")}
        #: What only the API may hold, by variable (the LTI private key is a file in JUDGE_LTI_DIR).
        self.api_secrets = {"POSTGRES_PASSWORD": secrets.token_hex(16), "REDIS_API_PASSWORD": secrets.token_hex(16),
                            "JUDGE_API_TOKENS": f"ci:{self.token}",
                            "JUDGE_CALLBACK_SECRETS": f"ci:{secrets.token_hex(16)}",
                            "JUDGE_LEARN_CODES": f"ml101:{secrets.token_hex(12)}", "JUDGE_LTI_DIR": str(lti_dir)}
        self.env.update(
            self.api_secrets, POSTGRES_WORKER_PASSWORD=secrets.token_hex(16),
            REDIS_WORKER_PASSWORD=secrets.token_hex(16),
            JUDGE_PUBLIC_URL="https://judge.example.edu",
            JUDGE_SERVICE_IMAGE=SERVICE_IMAGE, REDIS_IMAGE=REDIS_IMAGE, POSTGRES_IMAGE=POSTGRES_IMAGE,
            JUDGE_API_BIND="127.0.0.1", JUDGE_API_PORT=str(self.port), JUDGE_WORKERS="1",
            JUDGE_VISIBILITY_TIMEOUT=str(VISIBILITY_TIMEOUT), JUDGE_RESTORE_INTERVAL=str(RESTORE_INTERVAL),
            JUDGE_TIME_SCALE=TIME_SCALE, JUDGE_STOP_GRACE_PERIOD="10s")
        self.url = f"http://127.0.0.1:{self.port}"

    def compose(self, *args: str, timeout: float = 300) -> str:
        r = subprocess.run(["docker-compose", "-p", self.project, "-f", str(COMPOSE_FILE), "-f", str(COMPOSE_LTI),
                            *args], env=self.env, capture_output=True, text=True, timeout=timeout)
        assert r.returncode == 0, (args, r.stdout[-2000:], r.stderr[-3000:])
        return r.stdout

    def containers(self, service: str) -> list[str]:
        return self.compose("ps", "-q", service).split()

    def sql(self, query: str) -> str:
        (pg,) = self.containers("postgres")
        return _docker("exec", pg, "psql", "-U", "judge", "-d", "judge", "-Atc", query).strip()

    def call(self, method: str, path: str, body: dict | None = None, timeout: float = 90) -> tuple[int, dict]:
        request = urllib.request.Request(self.url + path, method=method,
                                         data=json.dumps(body).encode() if body is not None else None,
                                         headers={"Authorization": f"Bearer {self.token}",
                                                  "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=timeout) as r:
                return r.status, json.loads(r.read())
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read() or b"{}")

    def submit(self, status: str, name: str, wait: bool) -> dict:
        source = (SUBMISSIONS / status / name).read_text()
        query = "?wait=true&timeout=60" if wait else ""
        code, body = self.call("POST", "/v1/submissions" + query, {"problem": "sinusoidal-pe", "source": source})
        assert code in (200, 202), (code, body)
        return body

    def wait_done(self, sub_id: str, timeout: float) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            code, body = self.call("GET", f"/v1/submissions/{sub_id}")
            assert code == 200, (code, body)
            if body["state"] == "done" or time.monotonic() > deadline:
                return body
            time.sleep(0.25)


def _docker(*args: str, timeout: float = 60) -> str:
    r = subprocess.run(["docker", *args], capture_output=True, text=True, timeout=timeout)
    assert r.returncode == 0, (args, r.stderr[-2000:])
    return r.stdout


def _sandbox_processes(container: str) -> list[str]:
    """The container's processes running as a sandbox uid (a learner's code), from the engine's `top`."""
    rows = _docker("top", container, "-eo", "uid,pid,comm").splitlines()[1:]
    return [row for row in rows if row.split() and row.split()[0].isdigit() and int(row.split()[0]) >= SANDBOX_UIDS]


def _wait_for(what: str, check, timeout: float, pause: float = 0.25):
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        assert time.monotonic() < deadline, f"{what}: not within {timeout} s"
        time.sleep(pause)


def _healthy(stack: Stack) -> bool:
    try:
        with urllib.request.urlopen(stack.url + "/healthz", timeout=3) as r:
            return json.loads(r.read()).get("status") == "ok"
    except (OSError, ValueError):
        return False


def _lti_folder(root: Path) -> Path:
    """platforms.json and the tool's key pair, as an operator gives them (README "Add it to Moodle / Canvas")."""
    from tests.support.lti_platform import new_key, pem

    folder = root / "lti"
    folder.mkdir(mode=0o700)
    private, public = pem(new_key())
    (folder / "tool.key").write_bytes(private)
    (folder / "tool.pub").write_bytes(public)
    (folder / "tool.key").chmod(0o600)
    platform = {"default": True, "client_id": "judge-test-client", "deployment_ids": ["1"],
                "auth_login_url": "https://lms.example.edu/auth", "auth_token_url": "https://lms.example.edu/token",
                "key_set_url": "https://lms.example.edu/jwks", "private_key_file": "tool.key",
                "public_key_file": "tool.pub"}
    (folder / "platforms.json").write_text(json.dumps({"https://lms.example.edu": [platform]}))
    return folder


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    """The project, up with two workers, both ready; taken down with its volumes after the module's tests."""
    require_docker(SERVICE_IMAGE, REDIS_IMAGE, POSTGRES_IMAGE,
                   what="COMPOSE DEPLOYMENT TEST (.ci/docker.sh deploy builds its images)").close()
    if shutil.which("docker-compose") is None:
        unavailable(
            "docker-compose is not installed, COMPOSE DEPLOYMENT TEST NOT RUN (.ci/docker.sh deploy installs it)"
        )
    stack = Stack(_lti_folder(tmp_path_factory.mktemp("compose-lti")))
    stack.figures = {"project": stack.project, "time_scale": TIME_SCALE, "visibility_timeout": VISIBILITY_TIMEOUT,
                     "restore_interval": RESTORE_INTERVAL}
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    try:
        started = time.monotonic()
        stack.compose("up", "-d", "--no-build", "--scale", "worker=2")
        _wait_for("GET /healthz answers ok", lambda: _healthy(stack), timeout=180, pause=0.5)
        stack.figures["seconds_to_healthz"] = round(time.monotonic() - started, 1)
        stack.workers = stack.containers("worker")
        assert len(stack.workers) == 2, stack.workers
        _wait_for("both workers ready", lambda: all(" ready." in _logs(w) for w in stack.workers), timeout=120,
                  pause=1)
        stack.figures["seconds_to_workers_ready"] = round(time.monotonic() - started, 1)
        yield stack
    finally:
        try:
            (ARTIFACTS / "compose.log").write_text(stack.compose("logs", "--no-color", timeout=60))
        except Exception as exc:  # noqa: BLE001 - the logs are for diagnosis only
            (ARTIFACTS / "compose.log").write_text(f"no logs: {exc}")
        (ARTIFACTS / "figures.json").write_text(json.dumps(stack.figures, indent=2) + "\n")
        stack.compose("down", "-v", "-t", "10", timeout=180)
    print(json.dumps(stack.figures))


#: Run inside a worker container with its own environment: each attempt a sandbox escape would make with the
#: worker's logins, and what came of it (JSON: attempt -> "refused" or what happened instead).
_WORKER_ATTEMPTS = r"""
import json, os, socket, sys
import psycopg, redis
out = {}
db = psycopg.connect(os.environ["JUDGE_DB_URL"].replace("+psycopg", ""), autocommit=True)
out["db: its own work (SELECT id FROM judge_submissions)"] = (
    "allowed" if db.execute("SELECT count(*) FROM judge_submissions").fetchone() is not None else "?")
for statement in sys.argv[1:]:
    try:
        rows = db.execute(statement).rowcount
        out["db: " + statement] = "no row" if rows == 0 else "it ran"
    except psycopg.errors.InsufficientPrivilege:
        out["db: " + statement] = "refused"
    except psycopg.Error as exc:
        out["db: " + statement] = type(exc).__name__ + ": " + str(exc)
mine = redis.Redis.from_url(os.environ["JUDGE_BROKER_URL"], socket_timeout=5)
anonymous = redis.Redis(host="redis", port=6379, socket_timeout=5)
for name, attempt in (("redis: CONFIG GET dir", lambda: mine.config_get("dir")),
                      ("redis: SET the API's sweeper lock", lambda: mine.set("judge:sweeper", "x")),
                      ("redis: FLUSHALL", lambda: mine.flushall()),
                      ("redis: another key", lambda: mine.get("another-app:session")),
                      ("redis: LPUSH without a user", lambda: anonymous.lpush("judge", "x"))):
    try:
        attempt()
        out[name] = "it ran"
    except redis.exceptions.NoPermissionError:
        out[name] = "refused"
    except redis.exceptions.RedisError as exc:
        out[name] = type(exc).__name__ + ": " + str(exc)
for host, port in [("api", 8000)] + [(ip, 8000) for ip in os.environ.get("API_ADDRESSES", "").split()] + [
        ("1.1.1.1", 53)]:
    try:
        socket.create_connection((host, port), timeout=3).close()
        out["net: %s:%s" % (host, port)] = "connected"
    except OSError:
        out["net: %s:%s" % (host, port)] = "refused"
print(json.dumps(out))
"""
_FORBIDDEN_SQL = (
    "SELECT * FROM judge_lti_sessions",
    "SELECT * FROM judge_lti_kv",
    "SELECT data FROM judge_lti_pictures",
    "INSERT INTO judge_bundles (digest, problem, archive, created_at) VALUES ('d', 'p', 'a', 0)",
    "UPDATE judge_submissions SET callback_url = 'http://10.0.0.1/'",
    "CREATE TABLE judge_mine (i int)",
    "COPY (SELECT 1) TO PROGRAM 'id'",
)


def test_compose_workers_hold_none_of_the_api_s_secrets_and_reach_only_redis_and_postgres(stack):
    """What a sandbox escape on a worker holds and reaches, tried from inside each worker container, once a
    submission was judged through it all (its verdict is then one a worker may no longer rewrite)."""
    judged = stack.submit("accepted", "vectorised.py", wait=True)
    judged = judged if judged["state"] == "done" else stack.wait_done(judged["id"], 60)
    assert judged["verdict"]["status"] == "accepted", judged
    forge = f"UPDATE judge_submissions SET status = 'wrong_answer', verdict_json = '' WHERE id = '{judged['id']}'"
    private_key = Path(stack.env["JUDGE_LTI_DIR"], "tool.key").read_text()
    secrets_of_api = [v.split(":")[-1] for v in stack.api_secrets.values()] + [private_key.splitlines()[1]]
    (api,) = stack.containers("api")
    api_addresses = [n["IPAddress"] for n in json.loads(_docker("inspect", api))[0]["NetworkSettings"]["Networks"]
                     .values()]
    results = {}
    for worker in stack.workers:
        seen = _docker("inspect", worker) + _docker("exec", worker, "cat", "/proc/1/environ") + _docker(
            "exec", worker, "sh", "-c", "ls -la /etc/judge 2>&1; env")
        held = [name for name, value in zip(list(stack.api_secrets) + ["the LTI private key"], secrets_of_api)
                if value in seen]
        assert held == [], f"worker {worker[:12]} holds {held}"
        out = _docker("exec", "-e", f"API_ADDRESSES={' '.join(api_addresses)}", worker, "python3", "-c",
                      _WORKER_ATTEMPTS, *_FORBIDDEN_SQL, forge, timeout=120)
        results[worker[:12]] = json.loads(out)
    for worker, outcome in results.items():
        allowed = {k: v for k, v in outcome.items() if v != "refused"}
        assert allowed == {"db: its own work (SELECT id FROM judge_submissions)": "allowed",
                           "db: " + forge: "no row"}, (worker, allowed)
    assert stack.call("GET", f"/v1/submissions/{judged['id']}")[1]["verdict"] == judged["verdict"]
    stack.figures["worker_attempts"] = next(iter(results.values()))


def test_compose_deployment_grades_and_loses_nothing_when_a_worker_is_killed(stack):
    from judge.sandbox.modes import mode_named

    workers, figures = stack.workers, stack.figures
    # Grading through the API, on the isolation the compose file documents.
    reduced = mode_named("reduced").not_enforced()
    for status, name in (("accepted", "vectorised.py"), ("wrong_answer", "sin_cos_swapped.py")):
        body = stack.submit(status, name, wait=True)
        if body["state"] != "done":
            body = stack.wait_done(body["id"], 60)
        verdict = body["verdict"]
        assert body["state"] == "done" and verdict["status"] == status, (name, body["state"], verdict)
        isolation = verdict["isolation"]
        assert isolation["mode"] == "reduced" and isolation["limits_by"] == "rlimits", isolation
        assert isolation["namespaces"] == [] and isolation["cgroup"] is None and isolation["seccomp"], isolation
        assert isolation["uid"] >= SANDBOX_UIDS, isolation
        # Landlock where the kernel and Docker's default seccomp profile allow it, else the file-system row.
        assert set(isolation["not_enforced"]) - {"file_system"} == set(reduced), isolation
        assert ("file_system" in isolation["not_enforced"]) is (not isolation["landlock"]), isolation
    figures["isolation"] = {k: isolation[k] for k in ("mode", "limits_by", "landlock", "not_enforced")}

    # A worker killed in the middle of a long job: the job still gets one verdict, from the other worker.
    body = stack.submit("time_limit_exceeded", "infinite_loop.py", wait=False)
    sub_id = body["id"]
    claimed = _wait_for("the long job claimed", lambda: stack.sql(
        f"select worker from judge_submissions where id = '{sub_id}' and state = 'running'"), timeout=60, pause=0.1)
    victim = next(w for w in workers if claimed == "judge@" + w[:12])
    survivor = next(w for w in workers if w != victim)
    _wait_for("the learner's code running in the claiming worker", lambda: _sandbox_processes(victim),
              timeout=10, pause=0.1)
    _docker("kill", victim)
    killed_at = time.time()
    done = stack.wait_done(sub_id, timeout=VISIBILITY_TIMEOUT + 90)
    assert done["state"] == "done", done
    finished = done["finished_at"]
    from datetime import datetime

    figures["seconds_kill_to_verdict"] = round(datetime.fromisoformat(finished.replace("Z", "+00:00"))
                                               .timestamp() - killed_at, 1)
    assert done["verdict"]["status"] == "time_limit_exceeded", done["verdict"]["message"]
    assert done["verdict"]["isolation"]["mode"] == "reduced"
    state, attempts, worker = stack.sql(
        f"select state, attempts, worker from judge_submissions where id = '{sub_id}'").split("|")
    assert state == "done" and int(attempts) >= 2 and worker == "judge@" + survivor[:12], (state, attempts, worker)
    # Exactly one verdict: stored once (the other worker's log), nothing left unacknowledged or queued,
    # and the stored verdict does not change after a few more restore rounds.
    time.sleep(2 * RESTORE_INTERVAL + 1)
    logs = "".join(_logs(w) for w in workers)
    stored = [line for line in logs.splitlines() if f"submission {sub_id}: time_limit_exceeded (attempt" in line]
    assert len(stored) == 1, stored
    again = stack.call("GET", f"/v1/submissions/{sub_id}")[1]
    assert again["finished_at"] == finished and again["verdict"] == done["verdict"]
    (redis,) = stack.containers("redis")
    admin = stack.env["REDIS_API_PASSWORD"]  # the queue, as the API sees it
    for command, expected in ((("hlen", "unacked"), "0"), (("llen", "judge"), "0")):
        out = _docker("exec", "-e", f"REDISCLI_AUTH={admin}", redis, "redis-cli", "--user", "judge-api", *command)
        assert out.strip() == expected, (command, out)
    figures["attempts"] = int(attempts)


def _logs(container: str) -> str:
    """A container's log, both streams (Celery logs on stderr), also once the container was killed."""
    r = subprocess.run(["docker", "logs", container], capture_output=True, text=True, timeout=60)
    return r.stdout + r.stderr
