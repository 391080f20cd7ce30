"""The verdict's record of how a run was isolated (``verdict.isolation``).

A module of its own, re-exported by :mod:`judge.verdict`: sandbox backends make
this record before the run, and a cold ``judge grade`` imports the rest of the
verdict's models while the learner's code runs, not before it starts.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field


class Isolation(BaseModel):
    """How the run was isolated; what each mode guarantees is judge.sandbox.modes.guarantees (README table)."""

    mode: Literal["full", "rootless", "reduced", "container", "none"]
    namespaces: list[str] = Field(default_factory=list)
    cgroup: str | None = None
    seccomp: bool = False
    uid: int | None = None
    limits_by: Literal["cgroup", "rlimits", "engine"] | None = Field(
        None, description="what enforced memory, process count and CPU: a cgroup, rlimits + the supervisor, "
                          "or the container engine")
    not_enforced: list[str] = Field(default_factory=list,
                                    description="protections this mode does not give (rows of the README table)")
    landlock: int = Field(0, description="the Landlock ABI that confined the run's files (mode reduced; 0: none)")
    note: str = ""
