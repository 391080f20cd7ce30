"""Callbacks as a platform token could abuse them, over real HTTP with a real `judge serve` (embedded, real
sandbox): by default they reach the outside world only (loopback and private addresses refused, on the address
really connected to, and nothing in ``callback_state`` tells which internal ports answer); an operator's
allow-list lets a platform on a private network through; a delivery is bound to the verdict version it carries,
so a rejudge applied while one is in flight is delivered after it, never lost."""

from __future__ import annotations

import httpx
import pytest

from tests.support.common import REPO
from tests.support.service import (
    SOURCES,
    CallbackListener,
    Server,
    body_json,
    free_port,
    require_sandbox,
    service_env,
    wait_done,
    wait_for,
)

TOKEN = "callbacks-token-0123456789"


def _final_callback_state(client: httpx.Client, sub_id: str) -> str:
    return wait_for(lambda: (lambda s: s["callback_state"] if s["callback_state"] in ("delivered", "failed")
                             else None)(client.get(f"/v1/submissions/{sub_id}").json()), 60, 0.2,
                    "a final callback_state")


def test_callbacks_reach_no_loopback_or_private_address_by_default(tmp_path):
    require_sandbox()
    listener = CallbackListener()
    port = int(listener.url.rsplit(":", 1)[1].split("/")[0])
    closed = free_port()
    env = service_env(JUDGE_API_TOKENS=f"lms:{TOKEN}", JUDGE_CALLBACK_ALLOW_NETWORKS="",  # the default: none
                      JUDGE_CALLBACK_POLL_SECONDS="0.1", JUDGE_CALLBACK_BACKOFF_SECONDS="0.1",
                      JUDGE_CALLBACK_MAX_ATTEMPTS="2")
    server = Server(tmp_path, f"sqlite:///{tmp_path}/judge.sqlite3", env, workers=1)
    try:
        with server.client(TOKEN) as client:
            # an address written in the URL is refused at once, in every spelling a resolver reads as loopback
            for host in ("127.0.0.1", "2130706433", "0x7f.1", "127.1", "0177.0.0.1", "10.0.0.5", "169.254.169.254",
                         "0.0.0.0"):
                answer = client.post("/v1/submissions", json={"problem": "sinusoidal-pe", "source": SOURCES["accepted"],
                                                              "callback_url": f"http://{host}:{port}/hook"})
                assert answer.status_code == 403 and answer.json()["code"] == "callback_not_allowed", (
                    host,
                    answer.text,
                )
            # a name is checked on the address it resolves to, when connecting: refused, and an open port and a
            # closed one end the same way, so callback_state tells nothing about what answers inside
            ids = [client.post("/v1/submissions", json={"problem": "sinusoidal-pe", "source": SOURCES["compile_error"],
                                                        "callback_url": f"http://localhost:{p}/hook"}).json()["id"]
                   for p in (port, closed)]
            wait_done(client, ids, 60)
            assert [_final_callback_state(client, i) for i in ids] == ["failed", "failed"]
        assert listener.received == [], "nothing reached the listener on loopback"
        assert "callbacks go to the outside world only" in server.output()
    finally:
        server.stop()
        listener.stop()


@pytest.mark.parametrize("host, public", [
    ("127.0.0.1", False), ("2130706433", False), ("0x7f.1", False), ("127.1", False), ("0177.0.0.1", False),
    ("[::1]", False), ("::ffff:127.0.0.1", False), ("2002:7f00:1::1", False), ("10.1.2.3", False),
    ("172.16.0.9", False), ("192.168.1.1", False), ("100.64.0.1", False), ("169.254.169.254", False),
    ("fe80::1", False), ("fd00::1", False), ("224.0.0.251", False), ("240.0.0.1", False), ("0.0.0.0", False),
    ("1.1.1.1", True), ("2606:4700:4700::1111", True), ("lms.example.org", None), ("deadbeef", None)])
def test_which_addresses_callbacks_may_reach(host, public):
    """Every spelling a resolver reads as an address is read as one; only global unicast is public, and an
    operator's network is allowed beside it."""
    import ipaddress

    from judge.service.outbound import AddressPolicy, is_public, literal_address

    address = literal_address(host)
    if public is None:
        assert address is None, "a name: checked on what it resolves to, when connecting"
        return
    assert address is not None and is_public(address) is public
    assert AddressPolicy.of([]).allows(address) is public
    if address.version == 4 and not public:
        assert AddressPolicy.of([str(ipaddress.ip_network(f"{address}/32"))]).allows(address)


def test_the_transport_connects_to_the_address_it_checked():
    """DNS rebinding needs a second lookup between the check and the connection; the transport makes one lookup
    per request and connects to the address it checked: a name only this resolver knows reaches the listener
    when its network is allowed, and nothing does when it is not."""
    from judge.service.outbound import AddressPolicy, AddressRefused, PublicOnlyTransport

    listener = CallbackListener()
    port = int(listener.url.rsplit(":", 1)[1].split("/")[0])
    lookups: list[str] = []

    def resolver(host: str, _port: int) -> list[str]:
        lookups.append(host)
        return ["127.0.0.1"]

    try:
        url = f"http://judge-rebind.test:{port}/hook"
        with httpx.Client(transport=PublicOnlyTransport(AddressPolicy.of([]), resolver)) as refusing, \
                pytest.raises(AddressRefused):
            refusing.post(url, content=b"{}", headers={"X-Judge-Submission": "refused"})
        assert lookups == ["judge-rebind.test"] and listener.received == []
        allowed = PublicOnlyTransport(AddressPolicy.of(["127.0.0.0/8"]), resolver)
        with httpx.Client(transport=allowed) as client:
            answer = client.post(url, content=b"{}", headers={"X-Judge-Submission": "allowed"})
        assert answer.status_code == 204 and lookups == ["judge-rebind.test"] * 2
        [got] = listener.received
        assert got["headers"]["Host"] == f"judge-rebind.test:{port}", "the name is kept for the receiver"
    finally:
        listener.stop()


def test_a_rejudge_applied_while_a_callback_is_in_flight_is_delivered_after_it(tmp_path):
    """The first delivery of a wrong answer is held by the platform while a rejudge turns it into an accepted
    one and is applied: when the platform answers, the new verdict (version 2, its bundle named) is sent next,
    and the store says delivered only once the platform got it."""
    require_sandbox()
    from tests.support.problems import _loosen, problems_copy

    problems = problems_copy(tmp_path / "problems")
    listener = CallbackListener(hold_first=True)
    env = service_env(JUDGE_API_TOKENS=f"lms:{TOKEN}", JUDGE_PROBLEMS_DIR=str(problems),
                      JUDGE_CALLBACK_POLL_SECONDS="0.1", JUDGE_CALLBACK_TIMEOUT_SECONDS="120")
    server = Server(tmp_path, f"sqlite:///{tmp_path}/judge.sqlite3", env, workers=1)
    try:
        with server.client(TOKEN) as client:
            source = (REPO / "submissions" / "sinusoidal-pe" / "wrong_answer" / "float32_table.py").read_text()
            sub_id = client.post("/v1/submissions", json={"problem": "sinusoidal-pe", "source": source,
                                                          "callback_url": listener.url}).json()["id"]
            first = wait_done(client, [sub_id], 120)[sub_id]
            assert first["verdict"]["status"] == "wrong_answer"
            old_digest = first["verdict"]["problem_digest"]
            assert listener.holding.wait(30), "the first delivery reached the platform"

            _loosen(problems)
            rid = client.post("/v1/rejudges", json={"problem": "sinusoidal-pe", "dry_run": False}).json()["id"]
            view = wait_for(lambda: (lambda v: v if v["state"] == "applied" else None)(
                client.get(f"/v1/rejudges/{rid}").json()), 120, 0.2, "the rejudge to be applied")
            now = client.get(f"/v1/submissions/{sub_id}").json()
            assert now["verdict"]["status"] == "accepted" and now["callback_state"] == "pending"
            listener.release()

            delivered = wait_for(lambda: (lambda d: d if len(d.get(sub_id, [])) == 2 else None)(
                listener.delivered()), 30, what="the new verdict's delivery")[sub_id]
            assert (first["verdict_version"], first["bundle_digest"]) == (1, old_digest)
            assert (now["verdict_version"], now["bundle_digest"]) == (2, view["digest"])
            assert view["digest"] != old_digest
            old, new = (body_json(r) for r in delivered)
            assert (old["verdict"]["status"], old["verdict_version"], old["bundle_digest"]) == \
                ("wrong_answer", 1, old_digest)
            assert (new["verdict"]["status"], new["verdict_version"], new["bundle_digest"]) == \
                ("accepted", 2, view["digest"])
            assert [r["headers"]["X-Judge-Verdict-Version"] for r in delivered] == ["1", "2"]
            assert delivered[1]["at"] >= delivered[0]["answered"], "the new verdict after the old one, not beside"
            assert _final_callback_state(client, sub_id) == "delivered"
    finally:
        listener.release()
        server.stop()
        listener.stop()
