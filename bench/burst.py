"""A deadline's burst on separate hosts (network namespaces, tests/support/hosts.py), as root:

    python bench/burst.py                          # 2000 submissions from 200 clients within ~60 s, 2 worker hosts
    python bench/burst.py -n 300 --clients 100 --spread 15 --workers 2

Half the files are correct (submissions/sinusoidal-pe/accepted), half wrong the way learners get it wrong
(wrong_answer, the attack files left out: a deadline is homework, not the red team).  Each client sends its
share at random moments spread over ``--spread`` seconds (``POST /v1/submissions``, no wait), over the bridge
to the API host.  While the burst runs, ``/metrics`` is read every 2 s (queue depth, age of the oldest queued
submission, busy and idle worker slots: what an autoscaler scales on).

It then checks that every submission has exactly one verdict, the one its file deserves (none lost, none
doubled), and prints:

* the API's time to accept a submission (p50/p95/p99) under the burst;
* submit -> verdict (p50/p95/p99);
* throughput: submissions per second from the first submission to the last verdict, against the same number
  of warm sandboxes grading the same files in the same order through :class:`judge.engine.Judge` directly
  (``--direct`` of them, a prefix of the same mix: a rate, not a total), side by side in this run.

Bounded: ``-n`` at most 5000, clients at most 500, traffic only to the harness's addresses.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

SUBMISSIONS = REPO / "submissions" / "sinusoidal-pe"
PROBLEM = "sinusoidal-pe"


def workload(n: int, seed: int = 2026) -> list[tuple[str, str, str]]:
    """(expected status, file name, source) per submission: half accepted, half wrong, seeded order."""
    correct = sorted((SUBMISSIONS / "accepted").glob("*.py"))
    wrong = [p for p in sorted((SUBMISSIONS / "wrong_answer").glob("*.py")) if not p.name.startswith("attack_")]
    rng = random.Random(seed)
    jobs = [("accepted", p) for p in (rng.choice(correct) for _ in range(n // 2))]
    jobs += [("wrong_answer", p) for p in (rng.choice(wrong) for _ in range(n - n // 2))]
    rng.shuffle(jobs)
    return [(status, p.name, p.read_text()) for status, p in jobs]


def percentiles(values: list[float]) -> dict[str, float]:
    if not values:
        return {"p50": float("nan"), "p95": float("nan"), "p99": float("nan"), "max": float("nan")}
    q = statistics.quantiles(values, n=100, method="inclusive") if len(values) > 1 else values * 99
    return {"p50": q[49], "p95": q[94], "p99": q[98], "max": max(values)}


def _gauges(text: str) -> dict[str, float]:
    wanted = {'judge_queue_depth{state="queued"}': "queued", 'judge_queue_depth{state="running"}': "running",
              "judge_queue_oldest_seconds": "oldest_s", 'judge_worker_slots{state="busy"}': "busy",
              'judge_worker_slots{state="idle"}': "idle", "judge_workers": "workers"}
    out = {}
    for line in text.splitlines():
        name, _, value = line.rpartition(" ")
        if name in wanted:
            out[wanted[name]] = float(value)
    return out


@dataclass
class BurstReport:
    n: int
    clients: int
    spread_s: float
    accept_ms: dict[str, float]
    verdict_s: dict[str, float]
    service_per_s: float
    direct_per_s: float | None
    direct_n: int
    lost: list[str]
    doubled: list[str]
    wrong_verdicts: list[str]
    refused: Counter
    metrics_max: dict[str, float]
    metrics_seen: list[dict] = field(default_factory=list)
    attempts_over_one: int = 0
    direct_each: list[float] = field(default_factory=list)   # before the burst, after it
    busy_share: dict[str, float] = field(default_factory=dict)

    @property
    def ratio(self) -> float | None:
        return self.service_per_s / self.direct_per_s if self.direct_per_s else None

    def lines(self) -> list[str]:
        a, v = self.accept_ms, self.verdict_s
        out = [f"burst: {self.n} submissions from {self.clients} clients over {self.spread_s:.0f} s",
               f"  accept (API, ms):        p50 {a['p50']:.0f}  p95 {a['p95']:.0f}  p99 {a['p99']:.0f}  "
               f"max {a['max']:.0f}",
               f"  submit -> verdict (s):   p50 {v['p50']:.1f}  p95 {v['p95']:.1f}  p99 {v['p99']:.1f}  "
               f"max {v['max']:.1f}",
               f"  throughput: service {self.service_per_s:.2f}/s"]
        if self.direct_per_s:
            each = " and ".join(f"{r:.2f}" for r in self.direct_each)
            out[-1] += (f", Judge directly {self.direct_per_s:.2f}/s ({each}/s before and after the burst) on "
                        f"{self.direct_n} of the same files: ratio {self.ratio:.3f}")
        out.append("  worker busy share (judging / first submission to last verdict): "
                   + ", ".join(f"{w} {v:.2f}" for w, v in sorted(self.busy_share.items())))
        out.append(f"  lost {len(self.lost)}, doubled {len(self.doubled)}, wrong verdicts {len(self.wrong_verdicts)},"
                   f" graded more than once {self.attempts_over_one}, answers retried {dict(self.refused)}")
        out.append("  /metrics max during the burst: " + ", ".join(f"{k} {v:g}" for k, v in
                                                                    sorted(self.metrics_max.items())))
        return out


def run_burst(cluster, n: int, clients: int, spread: float, direct: int, seed: int = 2026,  # noqa: C901
              timeout: float = 3600) -> BurstReport:  # noqa: ANN001
    """Send the burst to ``cluster`` (a :class:`tests.support.hosts.Cluster`), wait for every verdict, check
    them, then grade ``direct`` of the same files through ``Judge`` with as many sandboxes as the cluster has
    worker slots."""
    jobs = workload(n, seed)
    rng = random.Random(seed + 1)
    shares = [list(range(i, n, clients)) for i in range(clients)]
    sent: dict[int, tuple[str, float, float]] = {}   # index -> (id, submitted at, accept seconds)
    refused: Counter = Counter()
    lock = threading.Lock()

    def client(indices: list[int]) -> None:
        moments = sorted(rng.uniform(0, spread) for _ in indices)
        with cluster.client() as c:
            for index, moment in zip(indices, moments):
                delay = start + moment - time.time()
                if delay > 0:
                    time.sleep(delay)
                body = {"problem": PROBLEM, "source": jobs[index][2]}
                key = f"burst-{seed}-{index}"
                t0 = time.time()
                while True:  # as a platform does: the same Idempotency-Key makes every retry safe
                    try:
                        r = c.post("/v1/submissions", json=body, headers={"Idempotency-Key": key})
                    except httpx.TransportError as exc:  # e.g. a keep-alive connection the server just closed
                        with lock:
                            refused[type(exc).__name__] += 1
                        time.sleep(0.2)
                        continue
                    if r.status_code in (200, 201, 202):
                        with lock:
                            sent[index] = (r.json()["id"], t0, time.time() - t0)
                        break
                    with lock:  # a 429/503 is honoured (Retry-After)
                        refused[r.status_code] += 1
                    time.sleep(float(r.headers.get("Retry-After", "1")))

    samples: list[dict] = []
    stop_sampling = threading.Event()

    def sample() -> None:
        with httpx.Client(base_url=cluster.api_url, timeout=10) as c:
            while not stop_sampling.wait(2):
                try:
                    samples.append({"t": time.time() - start, **_gauges(c.get("/metrics").text)})
                except httpx.HTTPError:
                    pass

    before = (direct_throughput([jobs[i][2] for i in range(min(direct, n))],
                                slots=len(cluster.workers) * cluster.concurrency) if direct else None)
    start = time.time() + 1.0
    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    threads = [threading.Thread(target=client, args=(s,)) for s in shares if s]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    ids = {index: sid for index, (sid, _, _) in sent.items()}

    store = cluster.store()
    deadline = time.time() + timeout
    try:
        while True:
            rows = store.get_many(list(ids.values()))
            if all(r.state == "done" for r in rows.values()) or time.time() > deadline:
                break
            time.sleep(1)
    finally:
        stop_sampling.set()
        sampler.join()
    count_by_id = Counter(ids.values())
    lost = [f"#{i} {jobs[i][1]}" for i in range(n) if i not in ids or ids[i] not in rows
            or rows[ids[i]].state != "done"]
    doubled = [sid for sid, k in count_by_id.items() if k > 1]
    wrong = []
    for i, sid in ids.items():
        row = rows.get(sid)
        if row is not None and row.state == "done" and row.status != jobs[i][0]:
            wrong.append(f"#{i} {jobs[i][1]}: {row.status}, expected {jobs[i][0]}")
    done = [rows[sid] for sid in ids.values() if sid in rows and rows[sid].state == "done"]
    verdict_s = [rows[sid].finished_at - sent[i][1] for i, sid in ids.items() if rows.get(sid) and
                 rows[sid].state == "done"]
    first = min(t for _, t, _ in sent.values())
    last = max(r.finished_at for r in done) if done else first
    service_rate = len(done) / (last - first) if last > first else 0.0
    store.close()

    busy_share = {}
    for row in done:  # how much of the burst each worker spent judging (the rest: waiting on the broker, idle)
        busy_share[row.worker] = busy_share.get(row.worker, 0.0) + (row.finished_at - row.started_at)
    busy_share = {w: t / (last - first) for w, t in busy_share.items()} if last > first else {}
    direct_rates = []
    if direct:  # before the burst's verdicts would skew it, and after: the machine's load drifts
        sources = [jobs[i][2] for i in range(min(direct, n))]
        direct_rates = [direct_throughput(sources, slots=len(cluster.workers) * cluster.concurrency)]
    metrics_max = {}
    for s in samples:
        for k, v in s.items():
            if k != "t":
                metrics_max[k] = max(metrics_max.get(k, 0.0), v)
    return BurstReport(n=n, clients=clients, spread_s=spread,
                       accept_ms={k: v * 1e3 for k, v in percentiles([a for _, _, a in sent.values()]).items()},
                       verdict_s=percentiles(verdict_s), service_per_s=service_rate,
                       direct_per_s=statistics.mean([before, *direct_rates]) if direct_rates else None,
                       direct_each=[before, *direct_rates] if direct_rates else [], busy_share=busy_share,
                       direct_n=min(direct, n), lost=lost, doubled=doubled, wrong_verdicts=wrong,
                       refused=refused, metrics_max=metrics_max, metrics_seen=samples,
                       attempts_over_one=sum(1 for r in done if r.attempts > 1))


def direct_throughput(sources: list[str], slots: int) -> float:
    """Submissions per second through ``Judge`` directly: ``slots`` warm sandboxes, ``slots`` threads.  Warm
    as the service's workers are by then: sandboxes started, the bundle prepared, and one wrong answer
    diagnosed (the bank and the pattern atoms are built once per bundle), none of it timed."""
    from judge.engine import Judge

    judge = Judge(workers=slots)
    try:
        judge.warm_up()
        judge.problem(PROBLEM)
        judge.grade((SUBMISSIONS / "wrong_answer" / "sin_cos_swapped.py").read_text(), PROBLEM)
        started = time.perf_counter()
        with ThreadPoolExecutor(slots) as pool:
            list(pool.map(lambda s: judge.grade(s, PROBLEM), sources))
        return len(sources) / (time.perf_counter() - started)
    finally:
        judge.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", type=int, default=2000, help="submissions (at most 5000)")
    parser.add_argument("--clients", type=int, default=200, help="concurrent clients (at most 500)")
    parser.add_argument("--spread", type=float, default=60.0, help="seconds over which the burst is sent")
    parser.add_argument("--workers", type=int, default=2, help="worker hosts (judge worker -c 1 each)")
    parser.add_argument("--direct", type=int, default=400,
                        help="how many of the same files Judge grades directly for the throughput ratio (0: none)")
    parser.add_argument("--json", type=Path, help="also write the report here")
    args = parser.parse_args()
    if not (1 <= args.n <= 5000 and 1 <= args.clients <= 500):
        parser.error("-n must be 1..5000 and --clients 1..500")
    from tests.support.hosts import Cluster

    with Cluster(workers=args.workers, api_env={"JUDGE_MAX_PENDING": str(args.n + 100),
                                                "JUDGE_MAX_PENDING_PER_TENANT": str(args.n + 100),
                                                "JUDGE_RATE_LIMIT": "0"}) as cluster:
        report = run_burst(cluster, args.n, args.clients, args.spread, args.direct)
    print("\n".join(report.lines()))
    if args.json:
        body = {k: v for k, v in report.__dict__.items() if k != "refused"}
        body["refused"] = dict(report.refused)
        args.json.write_text(json.dumps(body, indent=1, default=str))
    return 0 if not (report.lost or report.doubled or report.wrong_verdicts) else 1


if __name__ == "__main__":
    sys.exit(main())
