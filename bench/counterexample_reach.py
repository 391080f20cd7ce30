"""How many failing examples get a counterexample, for one or more checkouts of the judge, side by side.

    python3 bench/counterexample_reach.py [--tree /tmp/main-checkout] [--tree .] [--folders wrong_answer,...]

Every example of both problems in the given folders (default: wrong_answer and runtime_error, attack files and
notebooks included) is graded by a warm ``Judge`` of each tree, in a fresh process per tree whose PYTHONPATH is
that tree; the examples themselves always come from this checkout, so both trees grade the same files.  Only
verdicts the search runs for (wrong answer or runtime error) count.  It prints, per file, each tree's
counterexample call (or "-"), then how many of the failing examples got one and their sizes (values, as the
search counts them), and for two trees how many got smaller or larger.  Make a before tree with
``git worktree add /tmp/main-checkout main``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PROBLEMS = ("sinusoidal-pe", "rotary-embedding")

_CHILD = r'''
import json, sys, time
from judge import Judge
from judge.verdict import Status
from judge.problem.inputs import materialize
out = {}
with Judge() as judge:
    judge.warm_up()
    for problem, path in json.loads(sys.argv[1]):
        source = open(path, "rb").read()
        start = time.perf_counter()
        verdict = judge.grade(source, problem)
        found = verdict.counterexample
        values = materialize(found.args) if found else {}
        size = sum(int(getattr(v, "size", 0)) for v in values.values() if hasattr(v, "shape"))
        ints = [v for v in values.values() if isinstance(v, int) and not isinstance(v, bool)]
        out[path] = {"status": verdict.status.value, "ms": (time.perf_counter() - start) * 1e3,
                     "searched": verdict.status in (Status.WRONG_ANSWER, Status.RUNTIME_ERROR),
                     "call": found.call[:90] if found else None, "differs": found.differs if found else None,
                     "size": size + (__import__("math").prod(abs(v) for v in ints) if ints else 0)}
print(json.dumps(out))
'''


def examples(folders: list[str]) -> list[tuple[str, str]]:
    return [(str(REPO / "problems" / problem), str(path)) for problem in PROBLEMS for folder in folders
            for path in sorted((REPO / "submissions" / problem / folder).glob("*"))
            if path.suffix in (".py", ".ipynb")]


def run_tree(tree: Path, chosen: list[tuple[str, str]]) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree.resolve()))
    r = subprocess.run([sys.executable, "-c", _CHILD, json.dumps(chosen)], capture_output=True, text=True,
                       cwd="/", env=env, timeout=3600)
    if r.returncode != 0:
        raise SystemExit(f"the judge of {tree} failed:\n{r.stderr[-3000:]}")
    return json.loads(r.stdout.splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tree", type=Path, action="append", help="a checkout of the judge (default: this one)")
    parser.add_argument("--folders", default="wrong_answer,runtime_error")
    args = parser.parse_args()
    trees = args.tree or [REPO]
    chosen = examples(args.folders.split(","))
    results = [run_tree(tree, chosen) for tree in trees]
    width = 52
    print(f"{'example':{width}} " + " | ".join(f"{str(t)[-40:]:40}" for t in trees))
    for problem, path in chosen:
        name = f"{Path(problem).name}/{Path(path).parent.name}/{Path(path).name}"
        cells = []
        for r in results:
            row = r[path]
            cells.append(f"{(row['call'] or '-') if row['searched'] else '(' + row['status'] + ')':40.40}")
        print(f"{name[-width:]:{width}} " + " | ".join(cells))
    print()
    for tree, r in zip(trees, results):
        searched = [row for row in r.values() if row["searched"]]
        got = [row for row in searched if row["call"]]
        sizes = sorted(row["size"] for row in got)
        median = sizes[len(sizes) // 2] if sizes else 0
        print(f"{str(tree)}: {len(got)} of {len(searched)} failing examples get a counterexample "
              f"(median size {median}, largest {sizes[-1] if sizes else 0} values)")
    if len(results) == 2:
        both = [p for _, p in chosen if results[0][p]["call"] and results[1][p]["call"]]
        smaller = sum(results[1][p]["size"] < results[0][p]["size"] for p in both)
        larger = sum(results[1][p]["size"] > results[0][p]["size"] for p in both)
        print(f"second tree against the first: {smaller} smaller, {larger} larger, "
              f"{len(both) - smaller - larger} the same size")


if __name__ == "__main__":
    main()
