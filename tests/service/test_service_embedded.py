"""Embedded mode as an operator runs it: a generated token on loopback, limits that answer 429 and 503,
and a server SIGKILLed with work pending that judges all of it after a restart."""

from __future__ import annotations

import re
import socket

import httpx
import pytest

from judge.service.callbacks import verify
from judge.service.store import Store
from tests.support.service import SOURCES, CallbackListener, Server, require_sandbox, service_env, wait_done, wait_for


def _non_loopback_address() -> str | None:
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("192.0.2.1", 9))  # no packet is sent: this only picks the outgoing interface
            address = s.getsockname()[0]
    except OSError:
        return None
    return None if address.startswith("127.") else address


def test_generated_token_loopback_rate_limit_and_full_queue(tmp_path):
    require_sandbox()
    # slow refill: no flake under load; the one token may fill the whole queue (its share is the whole)
    env = service_env(JUDGE_RATE_LIMIT="0.01:6", JUDGE_MAX_PENDING="2", JUDGE_MAX_PENDING_PER_TENANT="2")
    server = Server(tmp_path, f"sqlite:///{tmp_path}/judge.sqlite3", env, workers=1)
    try:
        match = re.search(r"JUDGE_API_TOKEN=(\S+)", server.output())
        assert match, server.output()
        token = match.group(1)
        assert "127.0.0.1" in server.output()
        address = _non_loopback_address()
        if address is not None:  # loopback only: nothing answers on the machine's other address
            with pytest.raises(httpx.ConnectError):
                httpx.get(f"http://{address}:{server.port}/healthz", timeout=2)
        with server.client(token) as client:
            body = {"problem": "sinusoidal-pe", "source": SOURCES["time_limit_exceeded"]}
            assert client.post("/v1/submissions", json=body).status_code == 202   # 1 (judged 4 s)
            assert client.post("/v1/submissions", json=body).status_code == 202   # 2
            full = client.post("/v1/submissions", json=body)                      # 3: 2 pending already
            assert full.status_code == 503 and full.json()["code"] == "queue_full"
            assert full.headers["Retry-After"]
            assert client.get("/v1/problems").status_code == 200                  # 4
            assert client.get("/v1/problems").status_code == 200                  # 5
            assert client.get("/v1/problems").status_code == 200                  # 6: the burst is spent
            limited = client.get("/v1/problems")
            assert limited.status_code == 429 and limited.json()["code"] == "rate_limited"
            assert int(limited.headers["Retry-After"]) >= 1
        with server.client("wrong") as stranger:
            assert stranger.get("/v1/problems").status_code == 401
    finally:
        server.stop()


def test_restart_after_sigkill_judges_pending_work(tmp_path):
    require_sandbox()
    listener = CallbackListener()
    token = "restart-token-123456"
    db = f"sqlite:///{tmp_path}/judge.sqlite3"
    env = service_env(JUDGE_API_TOKENS=f"lms:{token}", JUDGE_CALLBACK_BACKOFF_SECONDS="0.2")
    kinds = ["accepted", "wrong_answer", "accepted2", "compile_error"] + ["accepted", "wrong_answer"] * 3
    server = Server(tmp_path, db, env, workers=1, name="first")
    try:
        with server.client(token) as client:
            ids = [client.post("/v1/submissions", json={"problem": "sinusoidal-pe", "source": SOURCES[k],
                                                        "callback_url": listener.url}).json()["id"] for k in kinds]
            wait_for(lambda: client.get(f"/v1/submissions/{ids[0]}").json()["state"] != "queued", 30,
                     what="the first submission to start")
            server.kill()
        store = Store(db)
        states = {sub_id: store.get(sub_id).state for sub_id in ids}
        pending = [sub_id for sub_id, state in states.items() if state != "done"]
        assert len(pending) >= 5, states  # the kill really left work behind
        store.close()

        server = Server(tmp_path, db, env, workers=1, name="second")
        with server.client(token) as client:
            done = wait_done(client, ids, 90)
        assert [done[i]["verdict"]["status"] for i in ids] == [
            {"accepted2": "accepted"}.get(k, k) for k in kinds]
        store = Store(db)
        assert all(store.get(i).attempts >= 1 for i in ids)
        for sub_id in (i for i, state in states.items() if state == "running"):  # cut off mid-verdict: judged again
            assert store.get(sub_id).attempts == 2
        store.close()
        delivered = wait_for(lambda: (lambda d: d if set(ids) <= set(d) else None)(listener.delivered()), 30,
                             what="a callback for every submission")
        for sub_id in ids:
            record = delivered[sub_id][-1]
            assert verify(token.encode(), record["body"], record["headers"]["X-Judge-Signature"])
    finally:
        server.stop()
        listener.stop()


def test_worker_needs_a_broker_and_bad_tokens_are_refused():
    import subprocess
    import sys

    from tests.support.common import REPO

    env = service_env()
    p = subprocess.run([sys.executable, "-m", "judge.cli", "worker"], cwd=REPO, env=env, capture_output=True,
                       timeout=60)
    assert p.returncode == 2 and b"needs --broker" in p.stderr
    env["JUDGE_API_TOKENS"] = "lms"
    p = subprocess.run([sys.executable, "-m", "judge.cli", "serve", "--port", "1"], cwd=REPO, env=env,
                       capture_output=True, timeout=60)
    assert p.returncode == 2 and b"JUDGE_API_TOKENS" in p.stderr and b"Traceback" not in p.stderr


def test_through_judge_serve_one_learner_s_run_reads_nothing_of_another_s(tmp_path):
    """The cross-run breaches of warm judges, through the service (one worker, so both runs share a zygote and a
    result buffer):
    a victim plants a secret in its source, output, files and outputs; the next learner's file searches everything
    its run can read for it, and finds nothing; neither does root, in the worker's zygote."""
    import secrets as _secrets

    from tests.support.cross_run import attacker, findings, process_memory_holds, victim

    require_sandbox()
    token = "cross-run-token-123456"
    secret = _secrets.token_hex(16)
    env = service_env(JUDGE_API_TOKENS=f"lms:{token}")
    server = Server(tmp_path, f"sqlite:///{tmp_path}/judge.sqlite3", env, workers=1)
    try:
        with server.client(token) as client:
            first = client.post("/v1/submissions?wait=true&timeout=60",
                                json={"problem": "sinusoidal-pe", "source": victim(secret)}).json()
            assert f"PLANTED:{secret}" in first["verdict"]["stdout"]["text"]
            second = client.post("/v1/submissions?wait=true&timeout=60",
                                 json={"problem": "sinusoidal-pe", "source": attacker(secret)}).json()
        verdict = second["verdict"]
        found, clean = findings(verdict["stdout"]["text"])
        # the service grades in two runs (public cases, then hidden ones: judge.grading.phases), each a fresh
        # process that searched everything it could read: three CLEAN lines from each
        assert found == [] and len(clean) == 6, verdict["stdout"]["text"][-1500:]
        assert verdict["status"] == "wrong_answer" and secret not in str(second)
        from judge.sandbox.chain.watch import process_tree

        zygotes = [pid for pid in process_tree(server.proc.pid) if pid != server.proc.pid]
        assert zygotes, "judge serve started no zygote"
        for pid in zygotes:  # the server itself holds every source it stored; the processes runs fork from, none
            assert process_memory_holds(pid, secret.encode()) == [], pid
    finally:
        server.stop()
