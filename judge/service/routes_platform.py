"""The platform API: ``/v1/submissions`` and ``/v1/problems``, for course platforms with a bearer token.

A module-level router: each route asks for what it needs with ``Depends`` -- the service's parts
(:func:`context`), the calling platform (:func:`platform_of`), within its rate limit (:func:`limited`).
"""

from __future__ import annotations

import json
import logging
import re
from datetime import UTC, datetime
from typing import Annotated, Any
from urllib.parse import urlsplit

from fastapi import APIRouter, Depends, Header, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse, Response
from fastapi.security import HTTPBearer
from pydantic import BeforeValidator

from judge.problem.feedback_override import OverrideError, apply_override, parse_override
from judge.problem.feedback_policy import FeedbackLevel
from judge.service import page_cursor, problems
from judge.service import probes as probing
from judge.service.context import ServiceContext
from judge.service.errors import ApiError
from judge.service.outbound import AddressPolicy, literal_address
from judge.service.schemas import (
    BatchIn,
    BatchOut,
    ErrorBody,
    LearnerView,
    ProblemDetail,
    ProblemList,
    Submission,
    SubmissionIn,
    SubmissionPage,
    submission_view,
    summary_view,
)
from judge.service.store import (
    DONE,
    IdempotencyConflict,
    NewSubmission,
    PageQuery,
    QueueFull,
    StoredSubmission,
    TenantQueueFull,
)

log = logging.getLogger("judge.service")
_bearer = HTTPBearer(auto_error=False, description="a platform's token from JUDGE_API_TOKENS")
_ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": ErrorBody} for code in (400, 401, 403, 404, 413, 422, 429, 503)
}
_SUBMIT_RESPONSES: dict[int | str, dict[str, Any]] = {
    **_ERRORS,
    200: {"model": Submission, "description": "the verdict is ready: `wait=true` waited for it, or an "
                                              "`Idempotency-Key` replay of a submission already judged"}}
_BATCH_RESPONSES: dict[int | str, dict[str, Any]] = {
    **_ERRORS, 200: {"model": BatchOut, "description": "every verdict is ready (`wait=true`, or a replay)"}}


router = APIRouter()
#: the probing limits the API's learner view accepts: every one it admits is a valid limit (at most 9999 a window
#: of at most 999 hours or 99 days), so a request the schema allows is never refused
PROBES_PATTERN = r"^(off|[1-9][0-9]{0,3}/([1-9][0-9]{0,2}[smh]?|[1-9][0-9]?d))$"


def context(request: Request) -> ServiceContext:
    """The service's parts (store, queue, settings, limits), as ``create_app`` made them."""
    return request.app.state.ctx


async def platform_of(request: Request, ctx: ServiceContext = Depends(context),
                      _creds=Depends(_bearer)) -> str:  # noqa: ANN001
    """The calling platform, from its bearer token (401 otherwise)."""
    return ctx.auth.platform(request)


async def limited(platform: str = Depends(platform_of), ctx: ServiceContext = Depends(context)) -> str:
    """The calling platform, within its rate limit (429 otherwise)."""
    ctx.limiter.take(platform)
    return platform


def check(ctx: ServiceContext, item: SubmissionIn, where: str = "") -> None:
    """A submission's problem, callback host and metadata, as the server allows them (422 or 403 otherwise)."""
    settings = ctx.settings
    if not problems.known(item.problem):
        raise ApiError(422, "unknown_problem", f"{where}problem: unknown problem {item.problem!r} "
                                               f"(known: {', '.join(problems.available())})")
    if item.callback_url is not None:
        host = (urlsplit(item.callback_url).hostname or "").lower()
        if settings.callback_hosts is not None and host not in settings.callback_hosts:
            raise ApiError(403, "callback_not_allowed", f"{where}callback_url: host {host!r} is not in the "
                                                         "judge's allowed callback hosts")
        address = literal_address(host)  # names are checked where it counts: on the address connected to
        if address is not None and not AddressPolicy.of(settings.callback_allow_networks).allows(address):
            raise ApiError(403, "callback_not_allowed", f"{where}callback_url: {host!r} is not a public address "
                                                         "(callbacks go to the outside world only)")
    if item.metadata is not None and len(json.dumps(item.metadata)) > settings.max_metadata_bytes:
        raise ApiError(422, "invalid_request", f"{where}metadata: more than {settings.max_metadata_bytes} "
                                                "bytes of JSON")


async def create(ctx: ServiceContext, platform: str, items: list[SubmissionIn],
                 keys: list[str | None]) -> list[tuple[StoredSubmission, bool]]:
    """Store the submissions (all or none) and hand the new ones to the queue: ``(row, replayed)`` each."""
    new = [NewSubmission(platform=platform, problem=i.problem, source=i.source, callback_url=i.callback_url,
                         metadata=i.metadata, idempotency_key=k, tenant=platform) for i, k in zip(items, keys)]
    await run_in_threadpool(ctx.stamp_versions, new)
    try:
        results = await run_in_threadpool(ctx.store.create, new, ctx.settings.max_pending,
                                          ctx.settings.tenant_pending_limit)
    except TenantQueueFull as exc:  # this token's burst: its own limit, nobody else's
        raise ApiError(429, "tenant_queue_full", str(exc), headers={"Retry-After": "5"}) from None
    except QueueFull as exc:
        raise ApiError(503, "queue_full", str(exc), headers={"Retry-After": "5"}) from None
    except IdempotencyConflict as exc:
        raise ApiError(422, "idempotency_conflict", str(exc)) from None
    fresh = [row.id for row, replayed in results if not replayed]
    if fresh:
        try:
            await run_in_threadpool(ctx.backend.submit, fresh)
        except Exception:  # noqa: BLE001 - stored, so accepted: published again by the sweeper
            log.exception("could not hand %d submissions to the queue now; they will be retried", len(fresh))
    return results


def wait_seconds(ctx: ServiceContext, wait: bool, timeout: float | None) -> float:
    """How long a ``wait=true`` call may wait (capped by JUDGE_WAIT_MAX_SECONDS)."""
    if not wait:
        return 0.0
    cap = ctx.settings.wait_max_seconds
    return min(timeout if timeout is not None else cap, cap)


# -- submissions -------------------------------------------------------------
@router.post("/v1/submissions", status_code=202, response_model=Submission, responses=_SUBMIT_RESPONSES,
             tags=["submissions"], summary="Submit a file for judging")
async def submit(body: SubmissionIn, platform: str = Depends(limited), ctx: ServiceContext = Depends(context),
                 wait: bool = Query(False, description="answer with the verdict if it is ready in time"),
                 timeout: float | None = Query(None, gt=0, description="how long to wait (capped by the server)"),
                 idempotency_key: str | None = Header(None, max_length=255, description="a retried POST with the "
                                                      "same key returns the same submission")) -> Response:
    """Accepts the submission (202, `state: queued`).  With `wait=true`, answers when the verdict is
    stored (200) or after a bounded time (202, poll `GET /v1/submissions/{id}`)."""
    check(ctx, body)
    [(row, replayed)] = await create(ctx, platform, [body], [idempotency_key])
    seconds = wait_seconds(ctx, wait, timeout)
    if seconds > 0 and row.state != DONE:
        row = (await ctx.wait_done([row.id], seconds)).get(row.id, row)
    headers = {"Location": f"/v1/submissions/{row.id}"}
    if replayed:
        headers["Idempotent-Replayed"] = "true"
    return JSONResponse(submission_view(row), status_code=200 if row.state == DONE else 202, headers=headers)


@router.post("/v1/submissions/batch", status_code=202, response_model=BatchOut, responses=_BATCH_RESPONSES,
             tags=["submissions"], summary="Submit several files at once")
async def submit_batch(body: BatchIn, platform: str = Depends(platform_of), ctx: ServiceContext = Depends(context),
                       wait: bool = Query(False), timeout: float | None = Query(None, gt=0),
                       idempotency_key: str | None = Header(None, max_length=200)) -> Response:
    """All or nothing: every item is checked before any is stored.  An `Idempotency-Key` covers the
    batch (item *i* gets the key `KEY#i`)."""
    n = len(body.submissions)
    if n > ctx.settings.max_batch:
        raise ApiError(422, "batch_too_large", f"submissions: {n} items, at most {ctx.settings.max_batch}")
    ctx.limiter.take(platform, cost=n)
    for i, item in enumerate(body.submissions):
        size = len(item.model_dump_json().encode())  # each item within what one submission may be
        if size > ctx.settings.max_body_bytes:
            raise ApiError(413, "request_too_large", f"submissions[{i}]: {size} bytes, more than the "
                                                      f"{ctx.settings.max_body_bytes} one submission may be")
        check(ctx, item, f"submissions[{i}].")
    keys = [f"{idempotency_key}#{i}" if idempotency_key else None for i in range(n)]
    rows = [row for row, _ in await create(ctx, platform, body.submissions, keys)]
    seconds = wait_seconds(ctx, wait, timeout)
    if seconds > 0:
        fresh = await ctx.wait_done([r.id for r in rows], seconds)
        rows = [fresh.get(r.id, r) for r in rows]
    done = all(r.state == DONE for r in rows)
    return JSONResponse({"submissions": [submission_view(r) for r in rows]}, status_code=200 if done else 202)


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
MAX_PAGE = 200
_RFC3339 = re.compile(r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})")


def _rfc3339(value: object) -> object:
    """Only an RFC 3339 date-time, as the OpenAPI document says (pydantic alone also takes ``0.5`` as epoch
    seconds and a date without a time, which a client could not know)."""
    if not isinstance(value, str) or not _RFC3339.fullmatch(value):
        raise ValueError("must be an RFC 3339 date-time with an offset, e.g. 2026-01-15T09:00:00Z")
    return value


Rfc3339 = Annotated[datetime, BeforeValidator(_rfc3339)]


@router.get("/v1/submissions", response_model=SubmissionPage, responses=_ERRORS, tags=["submissions"],
            summary="Your submissions, newest first, a page at a time")
async def list_submissions(
        platform: str = Depends(limited), ctx: ServiceContext = Depends(context),
        problem: str | None = Query(None, min_length=1, max_length=200, description="only this problem's"),
        learner: str | None = Query(None, min_length=1, max_length=255,
                                    description="only those whose `metadata.learner` is this string"),
        since: Rfc3339 | None = Query(None, description="only those created at or after this time (RFC 3339, "
                                                       "with its offset: `2026-01-15T09:00:00Z`)"),
        cursor: str | None = Query(None, min_length=1, max_length=512,
                                   description="`next_cursor` of the previous page, unchanged"),
        limit: int = Query(50, ge=1, le=MAX_PAGE, description="at most this many per page")) -> Response:
    """This token's own submissions only (never another token's, nor the LMS's and `/learn` learners').
    Newest first: the first page is the latest activity, and a submission made while a client pages on
    never shifts a page (the cursor is a position, not an offset).  Each item links to its whole verdict."""
    key = ctx.settings.tokens.get(platform, "")
    after = page_cursor.decode(key, platform, cursor) if cursor is not None else None
    query = PageQuery(limit=limit + 1, problem=problem, learner=learner, after=after,
                      since=_seconds(since) if since is not None else None)
    rows = await run_in_threadpool(ctx.store.page, platform, query)
    more, rows = len(rows) > limit, rows[:limit]
    last = rows[-1] if rows else None
    return JSONResponse({"submissions": [summary_view(r) for r in rows],
                         "next_cursor": page_cursor.encode(key, platform, last.created_at, last.id)
                         if more and last is not None else None})


def _seconds(moment: datetime) -> float:
    """Epoch seconds of ``moment`` (always with an offset: :data:`Rfc3339`); computed on ordinals, so year 1 or
    9999 in any offset is still a number, not an overflow."""
    return (moment - _EPOCH).total_seconds()


@router.get("/v1/submissions/{submission_id}", response_model=Submission, responses=_ERRORS,
            tags=["submissions"], summary="A submission, with its verdict once judged")
async def get_submission(submission_id: str, platform: str = Depends(limited),
                         ctx: ServiceContext = Depends(context)) -> Response:
    row = await run_in_threadpool(ctx.store.get, submission_id[:64], platform)
    if row is None:
        raise ApiError(404, "not_found", f"no submission {submission_id!r}")
    return JSONResponse(submission_view(row))


@router.get("/v1/submissions/{submission_id}/learner-view", response_model=LearnerView, responses=_ERRORS,
            tags=["submissions"], summary="What the submission's learner may see of it")
async def learner_view(submission_id: str, platform: str = Depends(limited), ctx: ServiceContext = Depends(context),
                       hidden: FeedbackLevel | None = Query(None, description="the activity's level for hidden cases "
                                                                               "(default: the problem's)"),
                       hidden_ids: bool | None = Query(None, description="show hidden cases' own ids"),
                       probes: str | None = Query(None, pattern=PROBES_PATTERN, description=(
                           "the activity's probing limit, N/WINDOW (`5/1h`; window in s, m, h or d), or `off`"))
                       ) -> Any:
    """The verdict cut as the learner page cuts it: the problem's feedback policy (with the activity's `hidden`,
    `hidden_ids` and `probes`, if given), and its probing limit counted over this token's submissions of the
    problem with the same `metadata.learner` (each submission counts, by creation time, shown or not, so the
    answer for a submission never changes but by a rejudge or the due date).  Show learners this, never
    `GET /v1/submissions/{id}`."""
    from judge.service.learner_view import bundle_policy, learner_verdict

    row = await run_in_threadpool(ctx.store.get, submission_id[:64], platform)
    if row is None:
        raise ApiError(404, "not_found", f"no submission {submission_id!r}")
    policy = await run_in_threadpool(bundle_policy, row.problem)
    given = {k: v for k, v in (("hidden", hidden.value if hidden else None), ("hidden_ids", hidden_ids),
                                ("probes", probes)) if v is not None}
    try:
        policy = apply_override(policy, parse_override({k: str(v) for k, v in given.items()}))
    except OverrideError as exc:  # the pattern admits no such value: a guard, not an answer to expect
        raise ApiError(422, "invalid_request", str(exc)) from None
    learner = probing.learner_of(row.metadata_json)
    back_at = None
    if learner is not None and probing.needs_count(policy):
        times = await run_in_threadpool(probing.platform_times, ctx.store, platform, row.problem, learner,
                                        *probing.span(policy, [row]))
        back_at = probing.back_at(policy, times, row)
    view = submission_view(row)
    return {"id": row.id, "state": row.state, "problem": row.problem, "learner": learner,
            "created_at": view["created_at"], "finished_at": view["finished_at"],
            "verdict": learner_verdict(view["verdict"], policy, None, back_at)}


# -- problems ------------------------------------------------------------------
@router.get("/v1/problems", response_model=ProblemList, responses=_ERRORS, tags=["problems"])
async def list_problems(_platform: str = Depends(limited)) -> Any:
    return {"problems": await run_in_threadpool(problems.summaries)}


@router.get("/v1/problems/{problem_id}", response_model=ProblemDetail, responses=_ERRORS, tags=["problems"],
            summary="Statement, limits and public examples")
async def get_problem(problem_id: str, _platform: str = Depends(limited)) -> Any:
    if not problems.known(problem_id):
        raise ApiError(404, "not_found", f"no problem {problem_id!r}")
    return await run_in_threadpool(problems.detail, problem_id)
