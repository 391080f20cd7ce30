"""The scaled-out service on separate hosts (network namespaces on one machine, tests/support/hosts.py): broker,
db, api, two worker hosts.  Faults a real deployment meets: a worker host killed mid-job, a worker host cut off
from the broker and the database for longer than the visibility timeout.  Every submission ends with exactly one
verdict, none stays queued.  Each fault prints its recovery time as ``RECOVERY <fault>: <seconds> s``.

Deselected by default (tier ``hosts``); run as root: ``.ci/hosts-tier.sh`` or ``python3 -m pytest -m hosts -s
tests/hosts/test_hosts_cluster.py``.
"""

from __future__ import annotations

import time

from tests.support.common import SUBMISSIONS
from tests.support.hosts import Cluster, cluster_namespaces
from tests.support.service import SOURCES, submit_batch, wait_done, wait_for

VISIBILITY_TIMEOUT = 8  # seconds: a job held by a dead or cut-off worker comes back after this
#: about 4 s: the sandbox's wall limit ends each call of this sleeper (time_limit_exceeded), almost no CPU used
SLOW = (SUBMISSIONS / "time_limit_exceeded" / "sleep.py").read_text()


API_ENV = {"JUDGE_VISIBILITY_TIMEOUT": str(VISIBILITY_TIMEOUT), "JUDGE_RESTORE_INTERVAL": "2"}
WORKER_ENV = {"JUDGE_VISIBILITY_TIMEOUT": str(VISIBILITY_TIMEOUT), "JUDGE_RESTORE_INTERVAL": "2"}


def _submit(cluster: Cluster, sources: list[str]) -> list[str]:
    with cluster.client() as client:
        return submit_batch(client, sources)


def _all_done_once(cluster: Cluster, ids: list[str]) -> dict:
    """Every submission in ``ids`` is done with one stored verdict, and nothing in the store waits."""
    store = cluster.store()
    try:
        rows = store.get_many(ids)
        for sub_id in ids:
            row = rows[sub_id]
            assert row.state == "done" and row.status and row.verdict_json and row.finished_at, (sub_id, row)
            assert cluster.host_of(row.worker) in cluster.workers, row.worker
        states = store.stats()["states"]
        assert states["queued"] == 0 and states["running"] == 0, states
        return rows
    finally:
        store.close()


def _in_state(store, sub_id: str, state: str):  # noqa: ANN001, ANN202
    """The stored row when it is in ``state`` (with a worker), else None."""
    row = store.get(sub_id)
    return row if row.state == state and row.worker else None


def _running(cluster: Cluster, sub_id: str):  # noqa: ANN202
    store = cluster.store()
    try:
        return wait_for(lambda: _in_state(store, sub_id, "running"), 60, 0.05, "a worker to start the slow submission")
    finally:
        store.close()


def _recovery(fault: str, seconds: float) -> None:
    print(f"\nRECOVERY {fault}: {seconds:.1f} s", flush=True)


def test_smoke_verdicts_from_both_worker_hosts_and_a_cut_that_cuts(cluster):
    accepted = (SOURCES["accepted"], "accepted")
    wrong = (SOURCES["wrong_answer"], "wrong_answer")
    with cluster.client() as client:
        assert client.get("/healthz").json()["mode"] == "celery"
        ids = _submit(cluster, [accepted[0], wrong[0]])
        done = wait_done(client, ids, 120)
        assert [done[i]["verdict"]["status"] for i in ids] == ["accepted", "wrong_answer"]
        many = [accepted, wrong, accepted, wrong, accepted, wrong]
        more = _submit(cluster, [s for s, _ in many])
        done = wait_done(client, more, 120)
        assert [done[i]["verdict"]["status"] for i in more] == [k for _, k in many]
    rows = _all_done_once(cluster, ids + more)
    graded_by = {cluster.host_of(rows[i].worker) for i in ids + more}
    assert graded_by == {"w1", "w2"}, graded_by  # one job at a time each: both hosts grade
    # the hosts reach each other over the bridge only; a cut drops the packets, a heal lets them through again
    assert cluster.can_connect("clients", "api", 8000)
    assert cluster.can_connect("w1", "db", 5432)
    cluster.cut("w1", ["db"])
    try:
        assert not cluster.can_connect("w1", "db", 5432)
        assert cluster.can_connect("w1", "broker", 6379)  # only what was cut
    finally:
        cluster.heal("w1")
    assert cluster.can_connect("w1", "db", 5432)


def _slow_job_running(cluster) -> tuple[str, str, str]:  # noqa: ANN001
    """A slow submission, once a worker runs it: (its id, the running worker's host, the other worker host)."""
    [slow] = _submit(cluster, [SLOW])
    victim = cluster.host_of(_running(cluster, slow).worker)
    return slow, victim, next(w for w in cluster.workers if w != victim)


def _judged_elsewhere(cluster, sub_id: str, survivor: str, what: str):  # noqa: ANN001, ANN202
    """The row once done (by ``survivor``, after the visibility timeout); on a timeout, the survivor's log."""
    store = cluster.store()
    try:
        return wait_for(lambda: _in_state(store, sub_id, "done"), VISIBILITY_TIMEOUT + 90, 0.1,
                        f"{what} to be judged elsewhere")
    except AssertionError as exc:
        raise AssertionError(f"{exc}; row {store.get(sub_id)}; {survivor}'s log:\n"
                             f"{cluster.worker_log(survivor)[-4000:]}") from None
    finally:
        store.close()


def test_worker_host_killed_mid_job_is_judged_once_elsewhere(cluster):
    slow, victim, survivor = _slow_job_running(cluster)
    killed_at = time.monotonic()
    cluster.kill_host(victim)  # kill -9 of every process of the host: the worker and its sandbox
    final = _judged_elsewhere(cluster, slow, survivor, "the killed host's job")
    _recovery("worker-killed", time.monotonic() - killed_at)
    assert final.status == "time_limit_exceeded" and final.attempts >= 2, final
    assert cluster.host_of(final.worker) == survivor, final.worker
    cluster.start_worker(victim)  # the host comes back
    more = _submit(cluster, [SOURCES["accepted"], SOURCES["wrong_answer"]])
    with cluster.client() as client:
        wait_done(client, more, 120)
    rows = _all_done_once(cluster, [slow, *more])
    assert rows[slow].finished_at == final.finished_at and rows[slow].worker == final.worker


def test_worker_host_cut_off_mid_job_its_late_verdict_is_discarded(cluster):
    slow, victim, survivor = _slow_job_running(cluster)
    cut_at = time.monotonic()
    cluster.cut(victim, ["broker", "db"])  # longer than the visibility timeout: until the other host judged it
    try:
        first = _judged_elsewhere(cluster, slow, survivor, "the cut-off host's job")
        recovery = time.monotonic() - cut_at
        assert recovery > VISIBILITY_TIMEOUT
        _recovery("worker-cut-off", recovery)
        assert cluster.host_of(first.worker) == survivor and first.attempts >= 2, first
    finally:
        cluster.heal(victim)
    healed_at = time.monotonic()
    # the cut-off host finishes its attempt late: its verdict is discarded (the store keeps the first), or it
    # comes back and skips the job as judged already
    said = wait_for(lambda: next((m for m in ("a verdict was stored by another attempt", "already judged or unknown")
                                  if f"submission {slow}: {m}" in cluster.worker_log(victim)), None),
                    120, 0.5, f"{victim} to discard its late verdict")
    print(f"\nLATE worker-cut-off: {victim} said {said!r} {time.monotonic() - healed_at:.1f} s after the heal",
          flush=True)
    more = _submit(cluster, [SOURCES["accepted"], SOURCES["wrong_answer"], SOURCES["accepted2"]])
    with cluster.client() as client:
        done = wait_done(client, more, 120)
    assert [done[i]["verdict"]["status"] for i in more] == ["accepted", "wrong_answer", "accepted"]
    rows = _all_done_once(cluster, [slow, *more])
    late = rows[slow]
    assert (late.worker, late.finished_at, late.verdict_json) == (first.worker, first.finished_at, first.verdict_json)


def test_closing_the_cluster_leaves_no_namespace(cluster):
    assert cluster_namespaces(cluster)
    cluster.close()
    assert not cluster.leftovers(), cluster.leftovers()
    assert not cluster_namespaces(cluster)
