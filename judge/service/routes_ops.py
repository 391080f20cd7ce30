"""Operations: ``/healthz`` (no token) and ``/metrics`` (Prometheus)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse, Response
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from judge._version import __version__
from judge.service.context import ServiceContext


def operations_router(ctx: ServiceContext) -> APIRouter:
    router = APIRouter()
    settings, store, backend = ctx.settings, ctx.store, ctx.backend

    @router.get("/healthz", tags=["operations"], summary="Liveness and readiness (no token needed)")
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

    @router.get("/metrics", tags=["operations"], summary="Prometheus text format",
             response_class=Response, responses={200: {"content": {CONTENT_TYPE_LATEST: {}}}})
    async def metrics_endpoint() -> Response:
        data = await run_in_threadpool(generate_latest, ctx.metrics.registry)
        return Response(data, media_type=CONTENT_TYPE_LATEST)

    return router
