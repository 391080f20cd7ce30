"""The verdict: a versioned pydantic model that course platforms store as JSON."""

from __future__ import annotations

from enum import Enum
from typing import Final, Literal

from pydantic import BaseModel, Field

from judge.feedback import (
    Counterexample,
    FailurePattern,
    LearnerShown,
    MessageRef,
    Picture,
    Recovery,
    TimeFeedback,
)
from judge.isolation_record import Isolation  # in a module of its own: backends make it before a verdict

VERDICT_SCHEMA_VERSION: Final = 1


class Status(str, Enum):
    ACCEPTED = "accepted"
    WRONG_ANSWER = "wrong_answer"
    TIME_LIMIT_EXCEEDED = "time_limit_exceeded"
    MEMORY_LIMIT_EXCEEDED = "memory_limit_exceeded"
    RUNTIME_ERROR = "runtime_error"
    COMPILE_ERROR = "compile_error"
    INTERNAL_ERROR = "internal_error"
    SKIPPED = "skipped"  # cases only: not run because an earlier case ended the process


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
    worst_where: str | None = Field(None, description="the worst element in the exercise's terms (public cases only)")
    nonfinite_where: str | None = Field(None, description="the first NaN/inf in the exercise's terms (public only)")
    mismatch_kinds: dict[str, int] = Field(default_factory=dict,
                                           description="out-of-tolerance elements per kind of element "
                                                       "(e.g. sin/cos columns); counts only, also for hidden cases")
    window: ValueWindow | None = Field(None, description="expected vs got around the worst element (public only)")
    tolerance_ratio: float | None = Field(None, description="largest |got - expected| / (atol + rtol*|expected|) "
                                                            "(<= 1 passes); measured when the caller asks "
                                                            "(judge verify's tolerance margins)")


class ValueWindow(BaseModel):
    """A few elements around the worst one, for a side-by-side view (public cases only)."""

    where: str = Field("", description="the leading (batch) index the window is taken at, if any")
    row_label: str = ""
    col_label: str = ""
    rows: list[int] = Field(default_factory=list)
    cols: list[int] = Field(default_factory=list)
    expected: list[list[float]] = Field(default_factory=list)
    got: list[list[float | None]] = Field(default_factory=list, description="None stands for NaN or inf")
    worst: list[int] = Field(default_factory=list, description="(row, col) of the worst element")


class PropertyCheck(BaseModel):
    """A property the right answer has, checked on the learner's output without a reference."""

    id: str
    description: str
    holds: bool
    checked: int = Field(0, description="cases it was checked on")
    failed_cases: list[str] = Field(default_factory=list)


class Diagnosis(BaseModel):
    """A known mistake that explains the learner's output; hidden cases are named by id only."""

    id: str
    message: str
    confidence: float = Field(ge=0, le=1)
    cases: list[str] = Field(default_factory=list, description="failing cases this mistake explains")
    checked: int = Field(0, description="failing cases it could be checked on (small enough, right shape)")
    evidence: str = Field("", description="an example from a public case, if any")
    kind: Literal["mistake", "generic", "attack"] = "mistake"
    said: list[MessageRef] = Field(default_factory=list, description="the message as message ids (i18n)")
    explains: bool = Field(False, description="reproduces every failing case it was checked on: only then is it "
                                              "the explanation; otherwise it 'partly explains' len(cases) of checked")


class CallOutput(BaseModel):
    """What was printed during one call (or while the file loaded), split from the run's capture."""

    stdout: str = ""
    stderr: str = ""
    truncated: bool = Field(False, description="cut to the first few KiB, or past what the judge reads back")


class CaseResult(BaseModel):
    id: str
    function: str
    visibility: Literal["public", "hidden"]
    status: Status
    time_ms: float | None = Field(None, description="the learner's call alone, as the harness timed it")
    message: str = ""
    expected_shape: list[int] | None = None
    got_shape: list[int] | None = None
    expected_parts: list[list[int]] | None = Field(None, description="a function returning a tuple: each item's "
                                                                     "expected shape (the shapes above are of the "
                                                                     "items' values laid one after another)")
    got_parts: list[list[int]] | None = Field(None, description="a returned tuple: each item's shape")
    expected_dtypes: list[str] | None = None
    got_dtype: str | None = None
    facts: NumericFacts | None = None
    input_changed: list[str] = Field(default_factory=list, description="array arguments the call modified")
    weight: float = 1.0
    output: CallOutput | None = Field(None, description="printed during this call (None: could not be split)")
    said: list[MessageRef] = Field(default_factory=list, description="the message as message ids and parameters, "
                                                                     "joined by '; ' (judge.i18n renders them)")


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


class NotebookSource(BaseModel):
    """A notebook was graded: which of its cells the graded functions came from (the learner wrote cells)."""

    cells_used: list[int] = Field(default_factory=list, description="cells (1-based, all cells counted) whose "
                                                                      "statements the required functions reach "
                                                                      "(the first 100)")
    cells_skipped: list[int] = Field(default_factory=list, description="cells that are not Python (%%bash, "
                                                                         "%%html ...) or do not parse (the first 100)")
    ipython_lines: int = Field(0, description="magic, shell and help lines left out")


class Verdict(BaseModel):
    """One submission's verdict.

    Status rule (Kattis'): ``status`` is the status of the first case, in the bundle's case order, that was
    not accepted; ``accepted`` when every case was.  Cases after a crash of the whole process are
    ``skipped``.  (DMOJ's "most serious status wins" order is not used anywhere.)
    """

    schema_version: Literal[1] = VERDICT_SCHEMA_VERSION
    status: Status
    score: float = Field(ge=0, le=1)
    problem: str
    problem_digest: str = ""
    message: str = ""
    said: list[MessageRef] = Field(default_factory=list, description="the message as message ids (judge.i18n)")
    cases: list[CaseResult] = Field(default_factory=list)
    stdout: CapturedOutput = CapturedOutput()
    stderr: CapturedOutput = CapturedOutput()
    resources: Resources = Resources()
    isolation: Isolation | None = None
    judge_version: str
    numpy_version: str
    python_version: str
    judged_in_ms: float | None = None
    diagnoses: list[Diagnosis] = Field(default_factory=list, description="known mistakes, most likely first")
    checks: list[PropertyCheck] = Field(default_factory=list, description="properties of the output (facts)")
    patterns: list[FailurePattern] = Field(default_factory=list, description="what the failing cases have in common")
    recovered: Recovery | None = Field(None, description="what the learner computed, fitted to the bundle's family")
    pictures: list[Picture] = Field(default_factory=list, description="PNGs for failing public cases, if asked for")
    time_feedback: TimeFeedback | None = None
    counterexample: Counterexample | None = Field(None, description="the smallest input the judge found on which "
                                                  "your function differs from the reference (wrong answers and "
                                                  "runtime errors; never a hidden case)")
    load_output: CallOutput | None = Field(None, description="printed while the file loaded, before any call")
    notebook: NotebookSource | None = Field(None, description="set when the file was a notebook: lines in every "
                                                              "message are then named 'cell C, line M'")
    shown: LearnerShown | None = Field(None, description="set on a learner's view only: the feedback level it was "
                                                          "cut to (judge.formats.learner)")
    phase: Literal["public", "final"] = Field("final", description="'public': the public cases' verdict, given "
                                                                 "while the hidden ones still run (its score is over "
                                                                 "the public cases); 'final': the verdict of record")

    @property
    def accepted(self) -> bool:
        return self.status is Status.ACCEPTED
