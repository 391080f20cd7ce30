"""``/v1/rejudges``: rejudging a problem's stored submissions after its bundle changed (platform token).

``POST /v1/rejudges {"problem", "dry_run"}`` -> ``{"id", "state"}``; ``GET /v1/rejudges/{id}`` -> state,
progress, the matrix (old status -> new status -> count) and the changed submissions; ``POST .../apply`` makes
a finished dry run's verdicts current (callbacks and LTI scores sent again); ``POST .../cancel`` drops it.
How it runs and why live submissions never wait for it: :mod:`judge.service.rejudge`.

A token's rejudge covers that token's submissions only, and only that token sees, applies or cancels it
(anyone else's id is a 404).  One open rejudge per token and problem (409 ``rejudge_open`` names it), at most
``JUDGE_MAX_REJUDGE_ITEMS`` submissions each (422 ``rejudge_too_large``).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Body, Depends
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from judge.service import problems
from judge.service.context import ServiceContext
from judge.service.errors import ApiError
from judge.service.rejudge import RejudgeConflict, RejudgeOpen, RejudgeStore, RejudgeTooLarge
from judge.service.routes_platform import _ERRORS, context, limited

router = APIRouter()


class RejudgeIn(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)  # "false" or 0 is not a boolean here

    problem: str = Field(description="the problem whose stored submissions are graded again")
    dry_run: bool = Field(True, description="true: wait for apply or cancel; false: apply as soon as done")


class RejudgeOut(BaseModel):
    id: str
    problem: str
    dry_run: bool
    state: str = Field(description="queued | running | done | applying | applied | cancelled")
    requested_by: str | None = Field(None, description="the platform (token name) or the course that asked")
    digest: str | None = Field(None, description="the bundle version the new verdicts come from")
    total: int
    graded: int
    matrix: dict[str, dict[str, int]] = Field(description="old status -> new status -> submissions")
    changed: list[dict[str, Any]] = Field(description="submissions whose status or score changes (first 1000)")
    created_at: float
    finished_at: float | None = None
    applied_at: float | None = None


_CONFLICT: dict[int | str, dict[str, Any]] = {409: _ERRORS[400]}


def _view(ctx: ServiceContext, rid: str, platform: str) -> dict:
    """The rejudge, if this token asked for it (another token's, or a course's, is not found)."""
    view = RejudgeStore(ctx.store).view(rid[:64])
    if view is None or view["requested_by"] != platform:
        raise ApiError(404, "not_found", f"no rejudge {rid!r} of yours")
    return view


@router.post("/v1/rejudges", status_code=202, response_model=RejudgeOut, responses={**_ERRORS, **_CONFLICT},
             tags=["rejudges"], summary="Grade this token's stored submissions of a problem again with its bundle "
                                        "as it is now")
async def create(body: RejudgeIn = Body(...), platform: str = Depends(limited),
                 ctx: ServiceContext = Depends(context)) -> Any:
    if not problems.known(body.problem):
        raise ApiError(422, "unknown_problem", f"unknown problem {body.problem!r} (known: "
                       f"{', '.join(problems.available())})")
    from judge.problem.loader import load_problem

    digest = (await run_in_threadpool(load_problem, body.problem)).digest
    try:
        rid = await run_in_threadpool(RejudgeStore(ctx.store).create, body.problem, body.dry_run, digest, platform,
                                      None, platform, ctx.settings.max_rejudge_items)
    except RejudgeOpen as exc:
        raise ApiError(409, "rejudge_open", str(exc), headers={"Location": f"/v1/rejudges/{exc.rid}"}) from None
    except RejudgeTooLarge as exc:
        raise ApiError(422, "rejudge_too_large", str(exc)) from None
    ctx.backend.rejudge(rid)
    return JSONResponse(await run_in_threadpool(_view, ctx, rid, platform), status_code=202,
                        headers={"Location": f"/v1/rejudges/{rid}"})


@router.get("/v1/rejudges/{rejudge_id}", response_model=RejudgeOut, responses=_ERRORS, tags=["rejudges"],
            summary="A rejudge's state, its matrix of old and new statuses, and what changes")
async def get_one(rejudge_id: str, platform: str = Depends(limited), ctx: ServiceContext = Depends(context)) -> Any:
    return await run_in_threadpool(_view, ctx, rejudge_id, platform)


def _act(ctx: ServiceContext, rid: str, action: str, platform: str) -> dict:
    """Apply or cancel (409 when the rejudge's state does not allow it), then its view."""
    _view(ctx, rid, platform)
    rejudges = RejudgeStore(ctx.store)
    try:
        rejudges.apply(rid) if action == "apply" else rejudges.cancel(rid)
    except RejudgeConflict as exc:
        raise ApiError(409, "conflict", str(exc)) from None
    wake = ctx.extras.get("score_wake")  # LTI scores of the changed verdicts are due now
    if action == "apply" and wake is not None:
        wake()
    return _view(ctx, rid, platform)


@router.post("/v1/rejudges/{rejudge_id}/apply", response_model=RejudgeOut, responses={**_ERRORS, **_CONFLICT},
             tags=["rejudges"], summary="Make a finished rejudge's verdicts the current ones")
async def apply(rejudge_id: str, platform: str = Depends(limited), ctx: ServiceContext = Depends(context)) -> Any:
    return await run_in_threadpool(_act, ctx, rejudge_id, "apply", platform)


@router.post("/v1/rejudges/{rejudge_id}/cancel", response_model=RejudgeOut, responses={**_ERRORS, **_CONFLICT},
             tags=["rejudges"], summary="Drop a rejudge that is not applied")
async def cancel(rejudge_id: str, platform: str = Depends(limited), ctx: ServiceContext = Depends(context)) -> Any:
    return await run_in_threadpool(_act, ctx, rejudge_id, "cancel", platform)
