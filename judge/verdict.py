"""The verdict: a versioned pydantic model that course platforms store as JSON."""

from __future__ import annotations

from enum import Enum
from typing import Literal

from pydantic import BaseModel, Field

VERDICT_SCHEMA_VERSION = 1


class Status(str, Enum):
    ACCEPTED = "accepted"
    WRONG_ANSWER = "wrong_answer"
    TIME_LIMIT_EXCEEDED = "time_limit_exceeded"
    MEMORY_LIMIT_EXCEEDED = "memory_limit_exceeded"
    RUNTIME_ERROR = "runtime_error"
    COMPILE_ERROR = "compile_error"
    INTERNAL_ERROR = "internal_error"
    SKIPPED = "skipped"  # cases only: not run because an earlier case ended the process


# DMOJ's order when several statuses apply to one case: the most serious wins.
PRIORITY = [Status.INTERNAL_ERROR, Status.TIME_LIMIT_EXCEEDED, Status.MEMORY_LIMIT_EXCEEDED,
            Status.RUNTIME_ERROR, Status.WRONG_ANSWER, Status.SKIPPED, Status.ACCEPTED]


def most_serious(statuses: list[Status]) -> Status:
    return min(statuses, key=PRIORITY.index) if statuses else Status.ACCEPTED


class NumericFacts(BaseModel):
    """What is numerically wrong with one output.  Locations only for public cases."""

    total: int
    mismatched: int = Field(description="elements outside the tolerance")
    max_abs_error: float | None = None
    max_rel_error: float | None = None
    worst_index: list[int] | None = Field(None, description="where the largest error is (public cases only)")
    expected_at_worst: float | None = None
    got_at_worst: float | None = None
    nonfinite: int = 0
    first_nonfinite_index: list[int] | None = None
    atol: float
    rtol: float


class CaseResult(BaseModel):
    id: str
    function: str
    visibility: Literal["public", "hidden"]
    status: Status
    time_ms: float | None = Field(None, description="the learner's call alone, as the harness timed it")
    message: str = ""
    expected_shape: list[int] | None = None
    got_shape: list[int] | None = None
    expected_dtypes: list[str] | None = None
    got_dtype: str | None = None
    facts: NumericFacts | None = None
    input_changed: list[str] = Field(default_factory=list, description="array arguments the call modified")
    weight: float = 1.0


class Isolation(BaseModel):
    mode: Literal["full", "none", "container"]
    namespaces: list[str] = Field(default_factory=list)
    cgroup: str | None = None
    seccomp: bool = False
    uid: int | None = None
    note: str = ""


class Resources(BaseModel):
    """Kernel and supervisor records for the run (all cases together)."""

    wall_ms: float | None = None
    cpu_ms: float | None = None
    memory_peak_bytes: int | None = None
    oom_kills: int = 0
    forks_refused: int = 0
    exit_code: int | None = None
    signal: int | None = None
    killed_for: str | None = None


class CapturedOutput(BaseModel):
    text: str = ""
    bytes: int = 0
    truncated: bool = False


class Verdict(BaseModel):
    schema_version: Literal[1] = VERDICT_SCHEMA_VERSION
    status: Status
    score: float = Field(ge=0, le=1)
    problem: str
    problem_digest: str = ""
    message: str = ""
    cases: list[CaseResult] = Field(default_factory=list)
    stdout: CapturedOutput = CapturedOutput()
    stderr: CapturedOutput = CapturedOutput()
    resources: Resources = Resources()
    isolation: Isolation | None = None
    judge_version: str
    numpy_version: str
    python_version: str
    judged_in_ms: float | None = None

    @property
    def accepted(self) -> bool:
        return self.status is Status.ACCEPTED
