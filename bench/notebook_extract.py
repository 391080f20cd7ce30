"""Reading a notebook against its size, adversarial shapes included, before and after, side by side in one run:

    python bench/notebook_extract.py [--before c1278f3] [--sizes 65536,262144,1048576] [--timeout 60]

For each shape of tests/support/notebook_shapes.py (an honest Colab notebook, huge outputs, bare ``%`` lines, tens of
thousands of unbound names, thousands of cells, a long cell id, deep JSON, a too-deep expression, a
5,000-digit number) and each size up to the service's 1 MiB body:

- before: ``graded_source`` of the ``--before`` revision's judge (extracted with ``git archive``), in a process of
  its own, its CPU time (``> timeout`` when it had not finished);
- after: this checkout's door, ``read_submission(data, functions, name="answer.ipynb")``, which reads the notebook
  in its limited child process: the child's CPU time, the wall time of the whole call (the child's start-up
  included), and CPU seconds per MiB (the target: at most 1).

CPU time, not wall time, is compared: a shared machine stretches wall time.  ``--cold N`` adds what reading in a
child process costs a cold ``judge grade`` of an honest Colab notebook (and of its .py twin, which no child
reads): the median wall time of N alternating runs of each side.  Run from the repository root.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from judge.notebooks import read_submission  # noqa: E402
from judge.notebooks import submitted as door  # noqa: E402
from tests.support.notebook_shapes import REQUIRED, SHAPES  # noqa: E402

BEFORE = """
import json, sys, time
from judge.notebooks import graded_source, NotebookProblem
data = open(sys.argv[1], "rb").read()
started = time.process_time()
try:
    graded_source(data, json.loads(sys.argv[2]))
    outcome = "graded"
except NotebookProblem as exc:
    outcome = "refused"
except Exception as exc:
    outcome = "raised " + type(exc).__name__
print(json.dumps({"cpu": time.process_time() - started, "outcome": outcome}))
"""


def _checkout(revision: str, into: Path) -> Path:
    archive = subprocess.run(["git", "-C", str(REPO), "archive", revision, "judge"], check=True,
                             capture_output=True).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into


def _before(tree: Path, path: Path, timeout: float) -> tuple[str, str]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    try:
        done = subprocess.run([sys.executable, "-c", BEFORE, str(path), json.dumps(REQUIRED)], env=env, cwd=tree,
                              capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return f"> {timeout:.0f}", "no answer"
    try:
        result = json.loads(done.stdout)
    except ValueError:
        return "-", (done.stderr.strip().splitlines() or ["crashed"])[-1][:40]
    return f"{result['cpu']:.3f}", result["outcome"]


def _after(data: str) -> tuple[float, float, str]:
    door._answers.clear()
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    submitted = read_submission(data, REQUIRED, name="answer.ipynb")
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - children.ru_utime) + (after.ru_stime - children.ru_stime)
    outcome = "refused: " + submitted.refused[:40] if submitted.refused else "graded"
    return cpu, wall, outcome


def _cold(tree: Path, folder: Path, runs: int) -> None:
    """Median wall time of a cold ``judge grade`` before and after, for an honest notebook and its .py twin."""
    from tests.support.notebook_shapes import GOOD

    notebook = folder / "homework.ipynb"
    notebook.write_text(SHAPES["honest_colab"][0](200_000))
    python = folder / "homework.py"
    python.write_text(GOOD)
    print(f"\ncold `judge grade` (median wall of {runs} alternating runs; load average {os.getloadavg()[0]:.1f})")
    for path in (notebook, python):
        times: dict[str, list[float]] = {"before": [], "after": []}
        for _ in range(runs):
            for side, root in (("before", tree), ("after", REPO)):
                env = {**os.environ, "PYTHONPATH": str(root), "JUDGE_PROBLEMS_DIR": str(REPO / "problems")}
                started = time.perf_counter()
                done = subprocess.run([sys.executable, "-m", "judge.cli", "grade", str(path), "--format", "json"],
                                      cwd=root, env=env, capture_output=True, timeout=120, check=False)
                times[side].append(time.perf_counter() - started)
                assert json.loads(done.stdout)["status"] == "accepted", done.stderr[-500:]
        before, after = statistics.median(times["before"]), statistics.median(times["after"])
        print(f"  {path.name:16} before {before:6.3f} s  after {after:6.3f} s  ratio {after / before:5.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default="c1278f3", help="the revision to compare with")
    parser.add_argument("--sizes", default="65536,262144,1048576")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds the before side may take")
    parser.add_argument("--shapes", default=",".join(SHAPES))
    parser.add_argument("--cold", type=int, default=0, help="also time N cold `judge grade` runs of each side")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"load average {os.getloadavg()[0]:.1f}; before = {args.before}, after = this checkout; CPU seconds")
    header = f"{'shape':15} {'size':>9} {'before':>9} {'after':>7} {'wall':>7} {'s/MiB':>6}  outcome (before | after)"
    print(header)
    print("-" * len(header))
    with tempfile.TemporaryDirectory(prefix="bench-notebooks-") as folder:
        tree = _checkout(args.before, Path(folder) / "before")
        for name in args.shapes.split(","):
            build, _ = SHAPES[name]
            for size in sizes:
                data = build(size)
                path = Path(folder) / f"{name}-{size}.ipynb"
                path.write_text(data)
                before, before_outcome = _before(tree, path, args.timeout)
                cpu, wall, outcome = _after(data)
                per_mib = cpu / (len(data) / (1 << 20))
                print(f"{name:15} {len(data):>9} {before:>9} {cpu:>7.3f} {wall:>7.3f} {per_mib:>6.2f}  "
                      f"{before_outcome} | {outcome}", flush=True)
        if args.cold:
            _cold(tree, Path(folder), args.cold)


if __name__ == "__main__":
    main()
