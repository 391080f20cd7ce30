"""A deadline's burst on separate hosts, at the size CI affords: every submission from many clients at once
ends with exactly one verdict, the one its file deserves, and ``/metrics`` shows what an autoscaler needs
while the queue is long.  The full burst (2,000 submissions from 200 clients) and its figures are
``bench/burst.py``, with the throughput against ``Judge`` directly; this test prints the same report for its
smaller burst, without that comparison (speed targets are checked by bench scripts, not by tests).

Its size is what the claims need, no more: 24 clients posting at once (each twice, on one kept-alive
connection) race the API's accept path; 48 submissions on two one-slot workers make a queue that takes about
half a minute to drain.  The volume CI once sent (120 from 60 clients) added waiting, not a new fact: the one
thing its 80 s queue exercised besides, the API's sweeper looking over jobs queued past its grace and finding
them still in the broker (so publishing none again), happens here on every sweep too, because this test's
sweeper looks every 2 s with a 3 s grace (the defaults: 10 s and 30 s)."""

from __future__ import annotations

from bench.burst import run_burst
from tests.support.hosts import Cluster

N, CLIENTS, SPREAD = 48, 24, 3.0
SWEEP, GRACE = 2, 3  # seconds: the sweeper looks over queued jobs many times while this burst drains


def test_a_burst_from_many_clients_loses_nothing_and_doubles_nothing():
    limits = {"JUDGE_MAX_PENDING": str(N + 50), "JUDGE_MAX_PENDING_PER_TENANT": str(N + 50)}  # one token, all of it
    sweeper = {"JUDGE_SWEEP_SECONDS": str(SWEEP), "JUDGE_SWEEP_GRACE": str(GRACE)}
    with Cluster(workers=2, api_env={**limits, **sweeper, "JUDGE_RATE_LIMIT": "0"}) as cluster:
        report = run_burst(cluster, N, CLIENTS, SPREAD, direct=0, timeout=900)  # the ratio: bench/burst.py
    print("\n" + "\n".join(report.lines()))
    assert report.lost == [] and report.doubled == [] and report.wrong_verdicts == []
    assert report.attempts_over_one == 0, "a job was claimed twice: published again while the broker held it?"
    assert not any(isinstance(k, int) for k in report.refused), report.refused  # no 429/503 at this size
    seen = report.metrics_max
    assert seen.get("queued", 0) >= 10, report.metrics_seen  # the burst outran the workers: a queue formed
    assert seen.get("oldest_s", 0) > GRACE + 2 * SWEEP, report.metrics_seen  # past the grace, for two sweeps
    assert seen.get("busy", 0) == 2 and seen.get("workers", 0) == 2, report.metrics_seen
    assert cluster.leftovers() == []
