"""The small bundle the replay tests grade against, and where their stored runs live.

The stored runs in tests/data/runs/ were recorded from real sandboxed runs of the example files
against ``small_bundle`` (three public examples only, so the stored slots stay small).
When the examples change, record them again (on a machine that can isolate)::

    python3 -c 'import sys; from tests.support.fake import make_small_bundle; \
print(make_small_bundle("/tmp/small-pe"))'
    python3 tests/support/fake.py record tests/data/runs /tmp/small-pe/sinusoidal-pe \
        submissions/sinusoidal-pe/{accepted/vectorised,wrong_answer/sin_cos_swapped,wrong_answer/input_mutated,\
memory_limit_exceeded/memory_hog,time_limit_exceeded/sleep,runtime_error/raises_index_error}.py
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]
RUNS = REPO / "tests" / "data" / "runs"
RECORDED = {  # stored run -> the verdict its real run got
    "vectorised": "accepted",
    "sin_cos_swapped": "wrong_answer",
    "input_mutated": "wrong_answer",
    "memory_hog": "memory_limit_exceeded",
    "sleep": "time_limit_exceeded",
    "raises_index_error": "runtime_error",
}
SOURCES = {stem: REPO / "submissions" / "sinusoidal-pe" / status / f"{stem}.py" for stem, status in RECORDED.items()}


SMALL_CASES = ("ex-table-3x4", "ex-table-2x5", "ex-add-ones")


def make_small_bundle(folder: str | Path) -> str:
    """sinusoidal-pe with only three of its public statement examples (SMALL_CASES)."""
    root = Path(folder) / "sinusoidal-pe"
    if root.exists():
        shutil.rmtree(root)
    shutil.copytree(REPO / "problems" / "sinusoidal-pe", root)
    cases = yaml.safe_load((root / "cases.yaml").read_text())
    cases["cases"] = [c for c in cases["cases"] if c["id"] in SMALL_CASES]
    assert len(cases["cases"]) == len(SMALL_CASES), "the stored runs were recorded for these cases"
    (root / "cases.yaml").write_text(yaml.safe_dump(cases, sort_keys=False))
    shutil.rmtree(root / "translations")  # they describe the cases left out too: a stale id is a load error
    return str(root)


def record(out_dir: str, files: list[str], problem: str = "sinusoidal-pe") -> None:
    """Grade ``files`` in a real sandbox and store each run as OUT_DIR/<file stem>.json (a wrong answer's
    counterexample search run beside it, as <file stem>.search.json)."""
    from judge.engine import Judge
    from judge.sandbox.backends.factory import backend_factory_for
    from judge.sandbox.backends.fake import RecordingBackend, source_key

    inner = backend_factory_for()
    recorders: list[RecordingBackend] = []

    def factory(slot: int) -> RecordingBackend:
        recorders.append(RecordingBackend(inner(slot)))
        return recorders[-1]

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    with Judge(backend_factory=factory) as judge:
        for name in files:
            source = Path(name).read_text()
            verdict = judge.grade(source, problem)
            runs = [run for run in recorders[0].runs.values() if run.source_sha256 == source_key(source)]
            for run, suffix in zip(runs, (".json", ".search.json")):
                (out / (Path(name).stem + suffix)).write_text(run.to_json() + "\n")
            print(f"{name}: {verdict.status.value} -> {out / Path(name).stem}.json ({len(runs)} run(s))")


if __name__ == "__main__":
    if len(sys.argv) < 5 or sys.argv[1] != "record":
        raise SystemExit("usage: python3 tests/support/fake.py record OUT_DIR PROBLEM FILE.py...")
    record(sys.argv[2], sys.argv[4:], sys.argv[3])
