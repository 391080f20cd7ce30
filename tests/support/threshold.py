"""Threshold-shaped wrong answers and bundles whose hidden cases are moved, for the counterexample's invariance.

A *threshold* answer is right everywhere but in its last row, and only from ``n`` rows on (rows: ``max_len`` of a
table, the second-to-last axis of an array): exactly the shape that read a hidden case's length out of the
counterexample, one threshold per submission.  A *moved* bundle is a copy of a problem whose hidden cases all
hold other arguments -- other lengths on the same side of ``n``, other widths of the same parity, another base,
other seeds and positions -- so that the same cases fail, and nothing else of theirs is the same.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import yaml

REPO = Path(__file__).resolve().parents[2]
PROBLEMS = ("sinusoidal-pe", "rotary-embedding")
#: Thresholds: below, at and past the hidden cases' own lengths, small ones and ones only large inputs reach.
THRESHOLDS = (2, 3, 5, 9, 10, 17, 20, 33, 64, 100, 700)
ROW_INTS = ("max_len",)  #: int arguments that are a table's rows
WIDTH_INTS = ("d_model", "d")  #: int arguments that are its width (the parity matters: an odd d must raise)
MAX_ROWS = 8192


def threshold_source(problem: str, rows: int) -> str:
    """The problem's threshold answer (its attack file), wrong from ``rows`` rows on."""
    text = (REPO / "submissions" / problem / "wrong_answer" / "attack_threshold_last_row.py").read_text()
    assert "_ROWS = 9 " in text
    return text.replace("_ROWS = 9 ", f"_ROWS = {rows} ", 1)


def _moved_rows(v: int, n: int) -> int:
    """Another length on the same side of ``n`` (``v`` itself only when no other is)."""
    for w in (v + 1, v - 1, v + 2):
        if 1 <= w <= MAX_ROWS and (w >= n) == (v >= n):
            return w
    return v


def _moved_width(v: int) -> int:
    return v + 2 if v + 2 <= 1024 else v - 2


def _moved_base(args: dict) -> float:
    return float(args["base"]) * 1.25 if "base" in args else 1234.5


def _moved_array(value: dict, n: int, rng: np.random.Generator) -> tuple[dict, int]:
    """(the array argument with its rows and width moved and a new seed, its new row count)."""
    if "generate" in value:
        made = dict(value["generate"])
        shape = list(made["shape"])
    else:
        literal = np.asarray(value["literal"])
        shape = list(literal.shape)
        made = {"dtype": value.get("dtype", "float64")}
    if len(shape) >= 2:
        shape[-2] = _moved_rows(shape[-2], n)
        shape[-1] = _moved_width(shape[-1])
    made.update(shape=shape, seed=int(made.get("seed", 0)) + 1000)
    moved = {k: v for k, v in value.items() if k not in ("generate", "literal", "dtype")}
    moved["generate"] = made
    return moved, shape[-2] if len(shape) >= 2 else shape[0]


def moved_bundle(problem: str, dest: Path, n: int) -> Path:
    """A copy of ``problem`` under ``dest`` whose every hidden case holds other arguments, so that the threshold
    answer for ``n`` fails exactly the same cases."""
    root = dest / problem
    shutil.copytree(REPO / "problems" / problem, root, ignore=shutil.ignore_patterns("__pycache__", ".judge-cache"))
    cases = yaml.safe_load((root / "cases.yaml").read_text())
    rng = np.random.default_rng(n)
    for case in cases["cases"]:
        if case.get("visibility", "hidden") != "hidden":
            continue
        args = dict(case["args"])
        rows = None
        for name, value in case["args"].items():
            if name in ROW_INTS:
                args[name] = rows = _moved_rows(int(value), n)
            elif name in WIDTH_INTS:
                args[name] = _moved_width(int(value))
            elif name == "x":
                args[name], rows = _moved_array(value, n, rng)
        if "positions" in args:  # as long as x's rows, other values
            args["positions"] = {"literal": rng.integers(0, MAX_ROWS, size=rows).tolist(), "dtype": "int64"}
        args["base"] = _moved_base(case["args"])
        case["args"] = args
    (root / "cases.yaml").write_text(yaml.safe_dump(cases, sort_keys=False))
    return root


def failing_cases(prepared, n: int) -> list[int]:  # noqa: ANN001 - a PreparedProblem
    """Which cases the threshold answer for ``n`` fails, by its rule: those at least ``n`` rows long that must
    not raise.  (The sandboxed test checks the real verdict's statuses agree between the two bundles.)"""
    failing = []
    for index, case in enumerate(prepared.cases):
        values = prepared.inputs.cases[index].values
        rows = values["max_len"] if "max_len" in values else values["x"].shape[-2]
        if rows >= n and case.spec.raises is None:
            failing.append(index)
    return failing
