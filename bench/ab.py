"""Two checkouts of the judge side by side, in one run: what a change costs on the warm and the cold path.

    python3 bench/ab.py --before /tmp/old-checkout [--after .] [--rounds 5] [--warm-runs 20]

Run as root on an otherwise idle machine.  Each round measures, for the *before* tree then the *after* tree
(the order flips every round, so a machine that slows down or speeds up during the run favours neither):

- warm: one fresh process per tree holds a ``Judge`` and grades the accepted file and a wrong answer
  ``--warm-runs`` times each, back to back (the service's case); the median per verdict;
- cold: ``python3 -m judge grade FILE`` as a fresh process (every course platform's case), three times each.

It prints the medians over all rounds and the after/before ratios.  Make the before tree with
``git worktree add /tmp/old-checkout <commit>``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
ACCEPTED = "submissions/sinusoidal-pe/accepted/vectorised.py"
WRONG = "submissions/sinusoidal-pe/wrong_answer/sin_cos_swapped.py"

_WARM = r'''
import json, sys, time
sys.path.insert(0, sys.argv[1])
from judge import Judge
runs = int(sys.argv[2])
out = {}
with Judge() as judge:
    for label, path in (("accepted", sys.argv[3]), ("wrong", sys.argv[4])):
        source = open(path).read()
        for _ in range(3):
            judge.grade(source)
        times = []
        for _ in range(runs):
            t = time.perf_counter()
            judge.grade(source)
            times.append(time.perf_counter() - t)
        out[label] = sorted(times)[len(times) // 2] * 1e3
print(json.dumps(out))
'''


def warm(tree: Path, runs: int) -> dict[str, float]:
    r = subprocess.run([sys.executable, "-c", _WARM, str(tree), str(runs), str(tree / ACCEPTED), str(tree / WRONG)],
                       capture_output=True, text=True, cwd="/", timeout=900)
    if r.returncode != 0:
        raise SystemExit(f"warm run in {tree} failed:\n{r.stderr[-2000:]}")
    return json.loads(r.stdout.splitlines()[-1])


def cold(tree: Path, path: str) -> float:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    started = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "judge", "grade", str(tree / path)], capture_output=True, cwd="/",
                       env=env, timeout=300)
    elapsed = (time.perf_counter() - started) * 1e3
    if r.returncode not in (0, 1):
        raise SystemExit(f"cold run in {tree} failed:\n{r.stderr.decode()[-2000:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", type=Path, required=True)
    parser.add_argument("--after", type=Path, default=REPO)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--warm-runs", type=int, default=20)
    args = parser.parse_args()
    trees = {"before": args.before.resolve(), "after": args.after.resolve()}
    samples: dict[str, dict[str, list[float]]] = {name: {} for name in trees}
    for round_ in range(args.rounds):
        order = list(trees) if round_ % 2 == 0 else list(reversed(trees))
        for name in order:
            for label, value in warm(trees[name], args.warm_runs).items():
                samples[name].setdefault(f"warm {label}", []).append(value)
            for label, path in (("cold accepted", ACCEPTED), ("cold wrong", WRONG)):
                for _ in range(3):
                    samples[name].setdefault(label, []).append(cold(trees[name], path))
        print(f"round {round_ + 1}/{args.rounds} done (load {os.getloadavg()[0]:.2f})", flush=True)
    print(f"\n{'ms, median':24} {'before':>10} {'after':>10} {'after/before':>13}")
    for label in samples["before"]:
        before, after = (statistics.median(samples[n][label]) for n in ("before", "after"))
        print(f"{label:24} {before:10.1f} {after:10.1f} {after / before:13.3f}")


if __name__ == "__main__":
    main()
