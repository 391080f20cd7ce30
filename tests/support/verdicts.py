"""Verdicts compared across runs: what stays once each run's own measurements are dropped."""

from __future__ import annotations

import json


def _comparable(verdict: dict) -> dict:
    """The verdict without what each run measures afresh: times, resources, the worker's cgroup name."""
    verdict = json.loads(json.dumps(verdict))
    verdict.pop("judged_in_ms")
    verdict.pop("resources")
    verdict["isolation"].pop("cgroup", None)
    for case in verdict["cases"]:
        case.pop("time_ms")
    return verdict
