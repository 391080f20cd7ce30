"""Time to first feedback (the public cases' verdict) against time to the final verdict.  Run by hand, as root,
from the repository root, on an otherwise idle machine:

    python bench/first_feedback.py [--rounds 10]

Side by side in one run, for an accepted and a wrong answer (sinusoidal-pe):

- on the service: `judge serve` (embedded, 1 worker, SQLite), each submission posted, then polled every 10 ms
  until its verdict is ``phase: public`` (first feedback) and until it is done (final);
- in-process, a warm ``Judge``: one run of every case (``phased=False``, what authors' tools do), and a phased
  grading's ``on_public`` and final times, so the price of the second run is seen beside what it buys.

Medians over ``--rounds`` submissions each; the ratio is first feedback / final.
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

from tests.support.service import Server, service_env  # noqa: E402

TOKEN = "bench-first-feedback-token-1234"
ANSWERS = {"accepted": REPO / "submissions/sinusoidal-pe/accepted/vectorised.py",
           "wrong answer": REPO / "submissions/sinusoidal-pe/wrong_answer/sin_cos_swapped.py"}
POLL = 0.01


def on_service(client: httpx.Client, source: str) -> tuple[float, float]:
    """(seconds to the public verdict, seconds to the final one) of one submission, from its POST."""
    started = time.perf_counter()
    sub_id = client.post("/v1/submissions", json={"problem": "sinusoidal-pe", "source": source}).json()["id"]
    public = None
    while True:
        body = client.get(f"/v1/submissions/{sub_id}").json()
        now = time.perf_counter() - started
        verdict = body["verdict"]
        if public is None and verdict is not None:
            public = now  # the first verdict seen: the public one, or the final one if it came first
        if body["state"] == "done":
            return public or now, now
        time.sleep(POLL)


def in_process(judge, one_run, source: str) -> tuple[float, float, float]:  # noqa: ANN001
    """(one run's seconds, the phased public verdict's, the phased final verdict's) of one grading each."""
    started = time.perf_counter()
    one_run.grade(source, "sinusoidal-pe")
    single = time.perf_counter() - started
    seen: list[float] = []
    started = time.perf_counter()
    judge.grade(source, "sinusoidal-pe", on_public=lambda v: seen.append(time.perf_counter() - started))
    return single, seen[0], time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args()
    from judge import Judge

    sources = {name: path.read_text() for name, path in ANSWERS.items()}
    work = Path(tempfile.mkdtemp(prefix="judge-bench-first-feedback-"))
    server = Server(work, f"sqlite:///{work}/judge.sqlite3", service_env(JUDGE_API_TOKENS=f"bench:{TOKEN}"),
                    workers=1)
    service: dict[str, list[tuple[float, float]]] = {name: [] for name in sources}
    try:
        with server.client(TOKEN) as client:
            client.timeout = 120
            for source in sources.values():
                on_service(client, source)  # warm
            for _ in range(args.rounds):
                for name, source in sources.items():
                    service[name].append(on_service(client, source))
    finally:
        server.stop()
    local: dict[str, list[tuple[float, float, float]]] = {name: [] for name in sources}
    with Judge(phased=True) as judge, Judge() as one_run:
        judge.warm_up()
        one_run.warm_up()
        for source in sources.values():
            in_process(judge, one_run, source)  # warm
        for _ in range(args.rounds):
            for name, source in sources.items():
                local[name].append(in_process(judge, one_run, source))

    def ms(values: list[float]) -> str:
        return f"{statistics.median(values) * 1e3:8.0f} ms"

    print(f"sinusoidal-pe, medians of {args.rounds} submissions each\n")
    print(f"{'service (embedded, 1 worker)':30} {'first feedback':>15} {'final':>12} {'ratio':>7}")
    for name, times in service.items():
        first, final = [t[0] for t in times], [t[1] for t in times]
        print(f"{name:30} {ms(first):>15} {ms(final):>12} {statistics.median(first) / statistics.median(final):7.2f}")
    print(f"\n{'warm Judge, in process':30} {'one run':>12} {'first feedback':>15} {'final':>12} {'ratio':>7} "
          f"{'final / one run':>16}")
    for name, times in local.items():
        single, first, final = ([t[k] for t in times] for k in range(3))
        ratio = statistics.median(first) / statistics.median(final)
        cost = statistics.median(final) / statistics.median(single)
        print(f"{name:30} {ms(single):>12} {ms(first):>15} {ms(final):>12} {ratio:7.2f} {cost:16.2f}")


if __name__ == "__main__":
    main()
