"""Bounded load test of the judge service on loopback (run by hand, as root, from the repository root).

    python bench/load_service.py --mode embedded            # judge serve, 2 embedded workers
    python bench/load_service.py --mode celery              # judge serve --broker + 2 judge worker processes
    python bench/load_service.py --url http://HOST:PORT --token TOKEN   # an already running service

N submissions (default 500) from C concurrent clients (default 20), each client submitting with
`?wait=true` and polling when the wait runs out; a mix of correct files, wrong answers and a few
infinite loops (each costs the 4 s per-call wall limit).  Checks that every submission gets exactly
the verdict its file deserves, then prints throughput and latency percentiles (submit -> verdict).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # the checkout's tests/ package, for its service support

from tests.support.service import Redis, Server, Worker, service_env  # noqa: E402

SUBMISSIONS = REPO / "submissions" / "sinusoidal-pe"


def workload(n: int, loop_share: float, seed: int) -> list[tuple[str, str]]:
    """(expected status, source) per submission, in a seeded order."""
    correct = [p.read_text() for p in sorted((SUBMISSIONS / "accepted").glob("*.py"))]
    wrong = [p.read_text() for p in sorted((SUBMISSIONS / "wrong_answer").glob("*.py"))]
    loop = (SUBMISSIONS / "time_limit_exceeded" / "infinite_loop.py").read_text()
    rng = random.Random(seed)
    loops = round(n * loop_share)
    jobs = [("time_limit_exceeded", loop)] * loops
    rest = n - loops
    jobs += [("accepted", rng.choice(correct)) for _ in range(rest // 2)]
    jobs += [("wrong_answer", rng.choice(wrong)) for _ in range(rest - rest // 2)]
    rng.shuffle(jobs)
    return jobs


def run_load(url: str, token: str, jobs: list[tuple[str, str]], clients: int, problem: str) -> dict:
    lock = threading.Lock()
    queue = list(enumerate(jobs))
    results: list[dict] = []
    errors: list[str] = []

    def client_loop() -> None:
        with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {token}"}, timeout=120) as c:
            while True:
                with lock:
                    if not queue:
                        return
                    index, (expected, source) = queue.pop(0)
                started = time.perf_counter()
                try:
                    r = c.post("/v1/submissions", params={"wait": "true", "timeout": "30"},
                               json={"problem": problem, "source": source, "metadata": {"n": index}})
                    body = r.json()
                    if r.status_code not in (200, 202):
                        raise RuntimeError(f"HTTP {r.status_code}: {body}")
                    while body["state"] != "done":
                        time.sleep(0.1)
                        body = c.get(f"/v1/submissions/{body['id']}").json()
                    latency = time.perf_counter() - started
                    with lock:
                        results.append({"index": index, "id": body["id"], "expected": expected,
                                        "status": body["verdict"]["status"], "latency": latency})
                except Exception as exc:  # noqa: BLE001
                    with lock:
                        errors.append(f"submission {index}: {type(exc).__name__}: {exc}")

    started = time.perf_counter()
    threads = [threading.Thread(target=client_loop) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return {"results": results, "errors": errors, "elapsed": time.perf_counter() - started}


def report(mode: str, n: int, clients: int, outcome: dict) -> bool:
    results, errors = outcome["results"], outcome["errors"]
    latencies = sorted(r["latency"] for r in results)
    wrong = [r for r in results if r["status"] != r["expected"]]
    ids = Counter(r["id"] for r in results)

    def pct(p: float) -> float:
        return latencies[min(len(latencies) - 1, int(round(p / 100 * (len(latencies) - 1))))] if latencies else 0.0
    print(f"\n== {mode}: {n} submissions from {clients} clients")
    print(f"verdicts:    {len(results)} of {n}  ({dict(Counter(r['status'] for r in results))})")
    print(f"elapsed:     {outcome['elapsed']:.1f} s")
    print(f"throughput:  {len(results) / outcome['elapsed']:.2f} verdicts/s")
    if latencies:
        print(f"latency:     p50 {pct(50):.2f} s   p95 {pct(95):.2f} s   max {latencies[-1]:.2f} s   "
              f"mean {statistics.fmean(latencies):.2f} s")
    ok = len(results) == n and not errors and not wrong and len(ids) == n
    for e in errors[:10]:
        print("ERROR", e)
    for w in wrong[:10]:
        print(f"UNEXPECTED verdict for submission {w['index']}: {w['status']} (expected {w['expected']})")
    print("result:     ", "OK - every submission got its verdict, none lost, none doubled" if ok else "FAILED")
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mode", choices=["embedded", "celery"], default="embedded")
    parser.add_argument("--n", type=int, default=500)
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--workers", type=int, default=2, help="embedded workers, or Celery worker processes")
    parser.add_argument("--loop-share", type=float, default=0.02, help="share of infinite-loop submissions")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--url", help="use a running service instead of starting one")
    parser.add_argument("--token")
    parser.add_argument("--problem", default="sinusoidal-pe")
    args = parser.parse_args()
    jobs = workload(args.n, args.loop_share, args.seed)
    if args.url:
        outcome = run_load(args.url, args.token or "", jobs, args.clients, args.problem)
        return 0 if report(args.url, args.n, args.clients, outcome) else 1

    token = "bench-token-0123456789"
    started: list = []
    with tempfile.TemporaryDirectory(prefix="judge-bench-") as tmp:
        work = Path(tmp)
        db = f"sqlite:///{work}/judge.sqlite3"
        env = service_env(JUDGE_API_TOKENS=f"bench:{token}", JUDGE_RATE_LIMIT="0", JUDGE_MAX_PENDING="10000",
                          JUDGE_MAX_PENDING_PER_TENANT="10000")
        try:
            if args.mode == "celery":
                redis = Redis()
                started.append(redis)
                server = Server(work, db, env, broker=redis.url)
                started.append(server)
                for i in range(args.workers):
                    started.append(Worker(work, f"bench{i}", redis.url, db, env, concurrency=1))
                label = f"celery, {args.workers} worker processes x 1"
            else:
                server = Server(work, db, env, workers=args.workers)
                started.append(server)
                label = f"embedded, {args.workers} workers"
            time.sleep(2)  # let the sandboxes warm up
            outcome = run_load(server.url, token, jobs, args.clients, args.problem)
            ok = report(label, args.n, args.clients, outcome)
            metrics = httpx.get(server.url + "/metrics").text
            print("\n".join(line for line in metrics.splitlines()
                            if line.startswith(("judge_verdicts_total", "judge_queue_depth"))))
        finally:
            for proc in reversed(started):
                proc.stop()
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
