"""A deadline's burst on separate hosts, at the size CI affords: every submission from many clients at once
ends with exactly one verdict, the one its file deserves, and ``/metrics`` shows what an autoscaler needs
while the queue is long.  The full burst (2,000 submissions from 200 clients) and its figures are
``bench/burst.py``, with the throughput against ``Judge`` directly; this test prints the same report for its
smaller burst, without that comparison (speed targets are checked by bench scripts, not by tests)."""

from __future__ import annotations

from bench.burst import run_burst
from tests.support.hosts import Cluster

N, CLIENTS, SPREAD = 120, 60, 8.0


def test_a_burst_from_many_clients_loses_nothing_and_doubles_nothing():
    limits = {"JUDGE_MAX_PENDING": str(N + 50), "JUDGE_MAX_PENDING_PER_TENANT": str(N + 50)}  # one token, all of it
    with Cluster(workers=2, api_env={**limits, "JUDGE_RATE_LIMIT": "0"}) as cluster:
        report = run_burst(cluster, N, CLIENTS, SPREAD, direct=0, timeout=900)  # the ratio: bench/burst.py
    print("\n" + "\n".join(report.lines()))
    assert report.lost == [] and report.doubled == [] and report.wrong_verdicts == []
    assert not any(isinstance(k, int) for k in report.refused), report.refused  # no 429/503 at this size
    seen = report.metrics_max
    assert seen.get("queued", 0) >= 10, report.metrics_seen  # the burst outran the workers: a queue formed
    assert seen.get("oldest_s", 0) > 1.0, report.metrics_seen
    assert seen.get("busy", 0) == 2 and seen.get("workers", 0) == 2, report.metrics_seen
    assert cluster.leftovers() == []
