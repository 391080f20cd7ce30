"""Request and response bodies of the HTTP API (they are also the OpenAPI schema)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, field_validator

from judge.verdict import Verdict

CALLBACK_URL_PATTERN = r"^https?://[A-Za-z0-9][A-Za-z0-9.-]*(:[0-9]{1,5})?([/?#][^\s]*)?$"


class SubmissionIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    problem: str = Field(min_length=1, max_length=200, examples=["sinusoidal-pe"])
    source: str = Field(description="the learner's Python file, or a Jupyter notebook's text (an .ipynb file as it "
                                    "is: its functions are graded, no other cell is run; messages name cell and line)")
    callback_url: str | None = Field(None, max_length=2048, pattern=CALLBACK_URL_PATTERN,
                                     description="receives a signed POST of the finished submission "
                                                 "(http or https, with a host)")
    metadata: dict[str, Any] | None = Field(None, description="stored and echoed back (at most 16 KiB of JSON)")

    @field_validator("callback_url")
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        if value is None:
            return value
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError("must be an http:// or https:// URL with a host")
        return value


class BatchIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    submissions: list[SubmissionIn] = Field(min_length=1)


class Submission(BaseModel):
    id: str
    state: Literal["queued", "running", "done"]
    problem: str
    verdict: Verdict | None = Field(None, description="once judged, the verdict of record (`phase: final`); while "
                                                     "`running`, the public cases' verdict when they are judged "
                                                     "(`phase: public`, its score over the public cases only)")
    metadata: dict[str, Any] | None = None
    created_at: datetime
    started_at: datetime | None = None
    finished_at: datetime | None = None
    callback_state: Literal["none", "waiting", "pending", "delivered", "failed"] = "none"
    verdict_version: int = Field(0, ge=0, description="0 until judged; 1 for the first verdict, +1 each time a "
                                                      "rejudge replaces it (keep the highest per id)")
    bundle_digest: str | None = Field(None, description="the problem bundle's version the verdict was graded "
                                                        "with (null until judged)")


class LearnerView(BaseModel):
    """A submission as its learner may see it: what a platform shows its learners (never the whole verdict)."""

    id: str
    state: Literal["queued", "running", "done"]
    problem: str
    learner: str | None = Field(None, description="the submission's `metadata.learner`: whose submissions the "
                                                  "probing limit counts (none: no limit applies)")
    created_at: datetime
    finished_at: datetime | None = None
    verdict: Verdict | None = Field(None, description="the learner's view: hidden cases cut by the problem's "
                                                      "feedback policy (and `feedback`), `shown` says how")


class BatchOut(BaseModel):
    submissions: list[Submission]


class SubmissionSummary(BaseModel):
    """A submission in a listing: its state and outcome; its whole verdict is at ``url``."""

    id: str
    state: Literal["queued", "running", "done"]
    problem: str
    created_at: datetime
    finished_at: datetime | None = None
    status: str | None = Field(None, description="the verdict's status, once judged")
    score: float | None = Field(None, ge=0, le=1, description="the verdict's score, once judged")
    metadata: dict[str, Any] | None = None
    url: str = Field(description="`GET` it for the submission with its whole verdict")


class SubmissionPage(BaseModel):
    submissions: list[SubmissionSummary] = Field(description="newest first")
    next_cursor: str | None = Field(None, description="pass it as `cursor` for the next page; null on the last page")


class ErrorBody(BaseModel):
    code: str = Field(examples=["not_found"])
    message: str


class ProblemSummary(BaseModel):
    id: str
    title: str
    functions: list[str]


class ProblemList(BaseModel):
    problems: list[ProblemSummary]


class Example(BaseModel):
    id: str
    function: str
    description: str = ""
    args: dict[str, Any]
    expected: Any = Field(None, description="the reference's output (absent when the call must raise)")
    raises: str | None = Field(None, description="the exception the call must raise, if it must")


class ProblemDetail(BaseModel):
    id: str
    title: str
    statement: str = Field(description="Markdown")
    functions: list[dict[str, Any]]
    limits: dict[str, Any]
    tolerance: dict[str, float]
    allowed_imports: list[str]
    examples: list[Example]
    digest: str


if TYPE_CHECKING:
    from judge.service.store import Listed, StoredSubmission


def _ts(value: float | None) -> str | None:
    if value is None:
        return None
    return datetime.fromtimestamp(value, tz=UTC).isoformat().replace("+00:00", "Z")


def submission_view(row: StoredSubmission) -> dict:
    """The JSON of a submission, as GET answers it and callbacks send it."""
    verdict = json.loads(row.verdict_json) if row.verdict_json else None
    if verdict is None and row.state == "running" and row.public_verdict_json:
        verdict = json.loads(row.public_verdict_json)  # phase "public": the hidden cases still run
    return {
        "id": row.id,
        "state": row.state,
        "problem": row.problem,
        "verdict": verdict,
        "metadata": json.loads(row.metadata_json) if row.metadata_json else None,
        "created_at": _ts(row.created_at),
        "started_at": _ts(row.started_at),
        "finished_at": _ts(row.finished_at),
        "callback_state": row.callback_state or "none",
        "verdict_version": int(row.verdict_version or 0),
        "bundle_digest": (verdict.get("problem_digest") or None) if isinstance(verdict, dict) else None,
    }


def summary_view(row: Listed) -> dict:
    """A listed submission's JSON (:class:`SubmissionSummary`)."""
    return {
        "id": row.id,
        "state": row.state,
        "problem": row.problem,
        "created_at": _ts(row.created_at),
        "finished_at": _ts(row.finished_at),
        "status": row.status,
        "score": float(row.score) if row.score is not None else None,
        "metadata": json.loads(row.metadata_json) if row.metadata_json else None,
        "url": f"/v1/submissions/{row.id}",
    }
