"""The HTTP API (FastAPI).  OpenAPI at /openapi.json, interactive docs at /docs."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import urlsplit

from fastapi import Depends, FastAPI, Header, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse, Response
from fastapi.security import HTTPBearer
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from starlette.exceptions import HTTPException as StarletteHTTPException

from judge._version import __version__
from judge.service import errors, problems
from judge.service.auth import Authenticator, RateLimiter
from judge.service.callbacks import CallbackDispatcher
from judge.service.errors import ApiError
from judge.service.metrics import Metrics
from judge.service.schemas import (BatchIn, BatchOut, ErrorBody, ProblemDetail, ProblemList, Submission,
                                   SubmissionIn, submission_view)
from judge.service.settings import Settings
from judge.service.store import DONE, IdempotencyConflict, NewSubmission, QueueFull, Store

log = logging.getLogger("judge.service")
_bearer = HTTPBearer(auto_error=False, description="a platform's token from JUDGE_API_TOKENS")
_ERRORS = {code: {"model": ErrorBody} for code in (401, 403, 404, 413, 422, 429, 503)}


class _BodyTooLarge(StarletteHTTPException):
    def __init__(self, limit: int) -> None:
        super().__init__(413, f"the request body is larger than {limit} bytes")


class ServiceMiddleware:
    """Request size limit (before the body is parsed) and request metrics."""

    def __init__(self, app, settings: Settings, metrics: Metrics) -> None:  # noqa: ANN001
        self.app, self.settings, self.metrics = app, settings, metrics

    def _limit(self, path: str) -> int:
        return self.settings.max_batch_body_bytes if path.endswith("/batch") else self.settings.max_body_bytes

    async def __call__(self, scope, receive, send) -> None:  # noqa: ANN001
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        started = time.perf_counter()
        status = {"code": 500}
        limit = self._limit(scope["path"])

        async def tracking_send(message) -> None:  # noqa: ANN001
            if message["type"] == "http.response.start":
                status["code"] = message["status"]
            await send(message)

        try:
            length = next((int(v) for k, v in scope["headers"] if k == b"content-length"), None)
        except ValueError:
            length = None
        if length is not None and length > limit:
            drained = 0  # read what the client sends (up to a bound) so it sees the answer, not a reset
            while drained <= 64 << 20:
                message = await receive()
                drained += len(message.get("body", b""))
                if message["type"] != "http.request" or not message.get("more_body"):
                    break
            response = errors.error_response(413, "request_too_large",
                                              f"the request body is {length} bytes, more than {limit}")
            await response(scope, receive, tracking_send)
        else:
            received = 0

            async def limited_receive():  # noqa: ANN202
                nonlocal received
                message = await receive()
                if message["type"] == "http.request":
                    received += len(message.get("body", b""))
                    if received > limit:
                        raise _BodyTooLarge(limit)
                return message

            await self.app(scope, limited_receive, tracking_send)
        route = getattr(scope.get("route"), "path", None) or "unmatched"
        self.metrics.observe(scope["method"], route, status["code"], started)


def create_app(settings: Settings, backend=None) -> FastAPI:  # noqa: ANN001, C901
    """The app; ``backend`` defaults to embedded workers, or Celery when ``settings.broker_url`` is set."""
    store = Store(settings.db_url)
    dispatcher = CallbackDispatcher(store, settings)
    if backend is None:
        if settings.broker_url:
            from judge.service.celery_app import CeleryBackend

            backend = CeleryBackend(store, settings)
        else:
            from judge.service.embedded import EmbeddedBackend

            backend = EmbeddedBackend(store, settings, on_stored=dispatcher.wake)
    metrics = Metrics(store, backend.health)
    auth = Authenticator(settings.tokens)
    limiter = RateLimiter(settings.rate_per_second, settings.rate_burst)

    @asynccontextmanager
    async def lifespan(_app: FastAPI):  # noqa: ANN202
        store.create_schema()
        dispatcher.start()
        backend.start()
        log.info("judge service ready: %s mode, store %s", settings.mode, store.dialect)
        try:
            yield
        finally:
            backend.stop()
            dispatcher.stop()
            store.close()

    app = FastAPI(title="numpy-judge", version=__version__, lifespan=lifespan,
                  description="Auto-grading judge for numpy exercises. Every /v1 call needs "
                              "`Authorization: Bearer <token>`; errors are `{code, message}`.")
    app.state.store, app.state.backend, app.state.settings = store, backend, settings
    errors.install(app)
    app.add_middleware(ServiceMiddleware, settings=settings, metrics=metrics)

    async def platform_of(request: Request, _creds=Depends(_bearer)) -> str:  # noqa: ANN001
        name = auth.platform(request)
        return name

    async def limited(platform: str = Depends(platform_of)) -> str:
        limiter.take(platform)
        return platform

    def check(item: SubmissionIn, where: str = "") -> None:
        if not problems.known(item.problem):
            raise ApiError(422, "unknown_problem", f"{where}problem: unknown problem {item.problem!r} "
                                                   f"(known: {', '.join(problems.available())})")
        if item.callback_url is not None and settings.callback_hosts is not None:
            host = (urlsplit(item.callback_url).hostname or "").lower()
            if host not in settings.callback_hosts:
                raise ApiError(403, "callback_not_allowed", f"{where}callback_url: host {host!r} is not in the "
                                                             "judge's allowed callback hosts")
        if item.metadata is not None and len(json.dumps(item.metadata)) > settings.max_metadata_bytes:
            raise ApiError(422, "invalid_request", f"{where}metadata: more than {settings.max_metadata_bytes} "
                                                    "bytes of JSON")

    async def create(platform: str, items: list[SubmissionIn], keys: list[str | None]) -> list[tuple[dict, bool]]:
        new = [NewSubmission(platform=platform, problem=i.problem, source=i.source, callback_url=i.callback_url,
                             metadata=i.metadata, idempotency_key=k) for i, k in zip(items, keys)]
        try:
            results = await run_in_threadpool(store.create, new, settings.max_pending)
        except QueueFull as exc:
            raise ApiError(503, "queue_full", str(exc), headers={"Retry-After": "5"}) from None
        except IdempotencyConflict as exc:
            raise ApiError(422, "idempotency_conflict", str(exc)) from None
        fresh = [row["id"] for row, replayed in results if not replayed]
        if fresh:
            try:
                await run_in_threadpool(backend.submit, fresh)
            except Exception:  # noqa: BLE001 - stored, so accepted: published again by the sweeper
                log.exception("could not hand %d submissions to the queue now; they will be retried", len(fresh))
        return results

    async def wait_done(ids: list[str], timeout: float) -> dict[str, dict]:
        deadline = time.monotonic() + timeout
        while True:
            rows = await run_in_threadpool(store.get_many, ids)
            if all(r["state"] == DONE for r in rows.values()) or time.monotonic() >= deadline:
                return rows
            await asyncio.sleep(min(0.05, max(0.0, deadline - time.monotonic())))

    def wait_seconds(wait: bool, timeout: float | None) -> float:
        if not wait:
            return 0.0
        return min(timeout if timeout is not None else settings.wait_max_seconds, settings.wait_max_seconds)

    # -- submissions -------------------------------------------------------------
    @app.post("/v1/submissions", status_code=202, response_model=Submission, responses=_ERRORS,
              tags=["submissions"], summary="Submit a file for judging")
    async def submit(body: SubmissionIn, platform: str = Depends(limited),
                     wait: bool = Query(False, description="answer with the verdict if it is ready in time"),
                     timeout: float | None = Query(None, gt=0, description="how long to wait (capped by the server)"),
                     idempotency_key: str | None = Header(None, max_length=255, description="a retried POST with the "
                                                          "same key returns the same submission")) -> Response:
        """Accepts the submission (202, `state: queued`).  With `wait=true`, answers when the verdict is
        stored (200) or after a bounded time (202, poll `GET /v1/submissions/{id}`)."""
        check(body)
        [(row, replayed)] = await create(platform, [body], [idempotency_key])
        seconds = wait_seconds(wait, timeout)
        if seconds > 0 and row["state"] != DONE:
            row = (await wait_done([row["id"]], seconds)).get(row["id"], row)
        headers = {"Location": f"/v1/submissions/{row['id']}"}
        if replayed:
            headers["Idempotent-Replayed"] = "true"
        return JSONResponse(submission_view(row), status_code=200 if row["state"] == DONE else 202, headers=headers)

    @app.post("/v1/submissions/batch", status_code=202, response_model=BatchOut, responses=_ERRORS,
              tags=["submissions"], summary="Submit several files at once")
    async def submit_batch(body: BatchIn, platform: str = Depends(platform_of),
                           wait: bool = Query(False), timeout: float | None = Query(None, gt=0),
                           idempotency_key: str | None = Header(None, max_length=200)) -> Response:
        """All or nothing: every item is checked before any is stored.  An `Idempotency-Key` covers the
        batch (item *i* gets the key `KEY#i`)."""
        n = len(body.submissions)
        if n > settings.max_batch:
            raise ApiError(422, "batch_too_large", f"submissions: {n} items, at most {settings.max_batch}")
        limiter.take(platform, cost=n)
        for i, item in enumerate(body.submissions):
            check(item, f"submissions[{i}].")
        keys = [f"{idempotency_key}#{i}" if idempotency_key else None for i in range(n)]
        results = await create(platform, body.submissions, keys)
        rows = [row for row, _ in results]
        seconds = wait_seconds(wait, timeout)
        if seconds > 0:
            fresh = await wait_done([r["id"] for r in rows], seconds)
            rows = [fresh.get(r["id"], r) for r in rows]
        done = all(r["state"] == DONE for r in rows)
        return JSONResponse({"submissions": [submission_view(r) for r in rows]}, status_code=200 if done else 202)

    @app.get("/v1/submissions/{submission_id}", response_model=Submission, responses=_ERRORS,
             tags=["submissions"], summary="A submission, with its verdict once judged")
    async def get_submission(submission_id: str, platform: str = Depends(limited)) -> Response:
        row = await run_in_threadpool(store.get, submission_id[:64], platform)
        if row is None:
            raise ApiError(404, "not_found", f"no submission {submission_id!r}")
        return JSONResponse(submission_view(row))

    # -- problems ------------------------------------------------------------------
    @app.get("/v1/problems", response_model=ProblemList, responses=_ERRORS, tags=["problems"])
    async def list_problems(_platform: str = Depends(limited)) -> Any:
        return {"problems": await run_in_threadpool(problems.summaries)}

    @app.get("/v1/problems/{problem_id}", response_model=ProblemDetail, responses=_ERRORS, tags=["problems"],
             summary="Statement, limits and public examples")
    async def get_problem(problem_id: str, _platform: str = Depends(limited)) -> Any:
        if not problems.known(problem_id):
            raise ApiError(404, "not_found", f"no problem {problem_id!r}")
        return await run_in_threadpool(problems.detail, problem_id)

    # -- operations -----------------------------------------------------------------
    @app.get("/healthz", tags=["operations"], summary="Liveness and readiness (no token needed)")
    async def healthz() -> Response:
        body: dict[str, Any] = {"status": "ok", "version": __version__, "mode": settings.mode}
        try:
            await run_in_threadpool(store.ping)
            body["store"] = "ok"
        except Exception as exc:  # noqa: BLE001
            body.update(status="unavailable", store=f"error: {type(exc).__name__}")
        try:
            body.update(await run_in_threadpool(backend.health))
        except Exception as exc:  # noqa: BLE001
            body.update(status="unavailable", broker=f"error: {type(exc).__name__}")
        return JSONResponse(body, status_code=200 if body["status"] == "ok" else 503)

    @app.get("/metrics", tags=["operations"], summary="Prometheus text format",
             response_class=Response, responses={200: {"content": {CONTENT_TYPE_LATEST: {}}}})
    async def metrics_endpoint() -> Response:
        data = await run_in_threadpool(generate_latest, metrics.registry)
        return Response(data, media_type=CONTENT_TYPE_LATEST)

    return app
