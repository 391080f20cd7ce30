"""Rejudging cost and what it does to live submissions.  Run by hand, as root, from the repository
root, on an otherwise idle machine:

    python bench/rejudge.py [--stored 500] [--live 20]

Starts `judge serve` (embedded, 2 workers, SQLite) on a copy of the problems folder, stores ``--stored``
judged submissions (10 example files graded through the API, their rows copied), then, side by side in one run:
the submit-to-verdict time of ``--live`` live submissions one after another with no rejudge running, and the
same while a dry-run rejudge of every stored submission runs; then the dry run's and the apply's times.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.support.problems import _loosen, problems_copy  # noqa: E402
from tests.support.service import (  # noqa: E402
    Server,
    _replicate,
    service_env,
    wait_done,
)

TOKEN = "bench-rejudge-token-123456"
SEED = ["accepted/vectorised.py", "accepted/loops_with_math.py", "accepted/einsum_or_outer.py",
        "wrong_answer/sin_cos_swapped.py", "wrong_answer/float32_table.py", "wrong_answer/base_ignored.py",
        "wrong_answer/transposed.py", "wrong_answer/rw_keras_sine_float32.py", "runtime_error/raises_index_error.py",
        "compile_error/syntax_error.py"]
LIVE = (REPO / "submissions" / "sinusoidal-pe" / "wrong_answer" / "sin_cos_swapped.py").read_text()


def _pct(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def live(client: httpx.Client, n: int) -> list[float]:
    """Submit-to-verdict seconds of ``n`` live submissions, one after another (``wait=true``)."""
    out = []
    for _ in range(n):
        started = time.perf_counter()
        answer = client.post("/v1/submissions", params={"wait": "true"},
                             json={"problem": "sinusoidal-pe", "source": LIVE})
        assert answer.status_code == 200 and answer.json()["verdict"]["status"] == "wrong_answer", answer.text
        out.append(time.perf_counter() - started)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--stored", type=int, default=500)
    parser.add_argument("--live", type=int, default=20)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="judge-bench-rejudge-"))
    problems = problems_copy(work / "problems")
    db = f"sqlite:///{work}/judge.sqlite3"
    server = Server(work, db, service_env(JUDGE_API_TOKENS=f"bench:{TOKEN}", JUDGE_PROBLEMS_DIR=str(problems)))
    try:
        with server.client(TOKEN) as client:
            client.timeout = 300
            items = [{"problem": "sinusoidal-pe", "source": (REPO / "submissions" / "sinusoidal-pe" / f).read_text()}
                     for f in SEED]
            ids = [
                s["id"] for s in client.post("/v1/submissions/batch", json={"submissions": items}).json()["submissions"]
            ]
            wait_done(client, ids, 300)
            copies = -(-(args.stored - len(ids)) // len(ids))
            _replicate(db, ids, copies)
            stored = len(ids) * (1 + copies)
            live(client, 3)  # warm
            without = live(client, args.live)
            _loosen(problems)
            started = time.perf_counter()
            rid = client.post("/v1/rejudges", json={"problem": "sinusoidal-pe", "dry_run": True}).json()["id"]
            time.sleep(1)
            during = live(client, args.live)
            still = client.get(f"/v1/rejudges/{rid}").json()
            while True:
                view = client.get(f"/v1/rejudges/{rid}").json()
                if view["state"] not in ("queued", "running"):
                    break
                time.sleep(0.5)
            dry = time.perf_counter() - started
            started = time.perf_counter()
            applied = client.post(f"/v1/rejudges/{rid}/apply").json()
            apply_s = time.perf_counter() - started
        changed = len(applied["changed"])
        print(f"stored submissions: {stored} (+{3 + 2 * args.live + 1} live ones); rejudge dry run {dry:.1f} s "
              f"({dry / view['total'] * 1e3:.0f} ms per submission, {view['total']} graded; {live.__name__} "
              f"samples taken while it had graded {still['graded']}), apply {apply_s:.2f} s ({changed} changed)")
        print(f"live submit -> verdict, {args.live} each:   p50        p95        max")
        for name, samples in (("no rejudge", without), ("rejudge running", during)):
            print(f"  {name:28} {statistics.median(samples) * 1e3:8.0f} ms {_pct(samples, 0.95) * 1e3:8.0f} ms "
                  f"{max(samples) * 1e3:8.0f} ms")
        print(f"  ratio with/without: p50 {statistics.median(during) / statistics.median(without):.2f}, "
              f"p95 {_pct(during, 0.95) / _pct(without, 0.95):.2f}; load {Path('/proc/loadavg').read_text().strip()}")
    finally:
        server.stop()


if __name__ == "__main__":
    main()
