"""The HTTP API (FastAPI).  OpenAPI at /openapi.json, interactive docs at /docs."""

from __future__ import annotations

import logging
import time
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from starlette.exceptions import HTTPException as StarletteHTTPException

from judge._version import __version__
from judge.service import errors, problems
from judge.service.auth import Authenticator, RateLimiter
from judge.service.bundle_versions import BundleVersions
from judge.service.callbacks import CallbackDispatcher
from judge.service.context import ServiceContext
from judge.service.loops import Loops
from judge.service.metrics import METHODS, OTHER_METHOD, Metrics
from judge.service.routes_ops import operations_router
from judge.service.routes_platform import router as platform_router
from judge.service.routes_rejudge import router as rejudge_router
from judge.service.settings import Settings
from judge.service.store import Store
from judge.service.worker_slots import SlotRegistry

log = logging.getLogger("judge.service")


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
        if scope["method"] not in METHODS:  # a made-up method: one answer, one metrics label, whatever the path
            response = errors.error_response(
                405,
                "method_not_allowed",
                f"this server answers {', '.join(sorted(METHODS))} only",
                {"Allow": ", ".join(sorted(METHODS))},
            )
            await response(scope, receive, send)
            self.metrics.observe(OTHER_METHOD, "unmatched", 405, started)
            return

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


def learner_side_parts(store: Store, settings: Settings) -> tuple[Any, Any] | None:
    """(pylti1p3 tool config or None, score dispatcher or None), or None when the learner side is off.
    Raises :class:`SettingsError` for a platform file that cannot be used."""
    if not settings.lti_config and not settings.learn_codes:
        return None
    if not settings.lti_config:
        return None, None
    from judge.service.lti.config import load_tool_config
    from judge.service.lti.passback import ScoreDispatcher
    from judge.service.lti.tables import LtiStore

    tool_config = load_tool_config(settings.lti_config)
    return tool_config, ScoreDispatcher(LtiStore(store), settings, tool_config)


def document(app: FastAPI) -> dict[str, Any]:
    """The OpenAPI document, with the problem ids this server knows as the ``problem`` field's enum
    (so a client, or schemathesis, sees that any other id is refused)."""
    if app.openapi_schema is None:
        schema = get_openapi(title=app.title, version=app.version, description=app.description, routes=app.routes)
        for model in ("SubmissionIn", "RejudgeIn"):  # every body that names a problem
            field = schema.get("components", {}).get("schemas", {}).get(model, {}).get("properties", {})
            if "problem" in field:
                field["problem"]["enum"] = problems.available()
                field["problem"]["description"] = ("one of the problems this server has (GET /v1/problems); "
                                                   "any other id is a 422 `unknown_problem`")
        app.openapi_schema = schema
    return app.openapi_schema


def create_app(settings: Settings, backend=None) -> FastAPI:  # noqa: ANN001
    """The app; ``backend`` defaults to embedded workers, or Celery when ``settings.broker_url`` is set."""
    from judge.service.lti.hooks import register as register_learner_hooks

    register_learner_hooks()  # pictures, grades after a rejudge: the core calls them via judge.service.learner_hooks
    store = Store(settings.db_url)
    dispatcher = CallbackDispatcher(store, settings)
    learner = learner_side_parts(store, settings)  # None unless LTI platforms or access codes are configured

    def stored(row: dict) -> None:
        dispatcher.wake(row)
        if learner is not None and learner[1] is not None:
            learner[1].wake(row)

    if backend is None:
        if settings.broker_url:
            from judge.service.celery_app import CeleryBackend

            backend = CeleryBackend(store, settings)
        else:
            from judge.service.embedded import EmbeddedBackend

            backend = EmbeddedBackend(store, settings, on_stored=stored)
    metrics = Metrics(store, backend.health, SlotRegistry(store))
    auth = Authenticator(settings.tokens)
    limiter = RateLimiter(settings.rate_per_second, settings.rate_burst)

    loops = Loops(dispatcher, learner[1] if learner is not None else None, backend)

    @asynccontextmanager
    async def lifespan(_app: FastAPI):  # noqa: ANN202
        store.create_schema()
        loops.start()
        log.info("judge service ready: %s mode, store %s", settings.mode, store.dialect)
        try:
            yield
        finally:
            loops.stop()
            store.close()

    app = FastAPI(title="numpy-judge", version=__version__, lifespan=lifespan,
                  description="Auto-grading judge for numpy exercises. Every /v1 call needs "
                              "`Authorization: Bearer <token>`; errors are `{code, message}`.")
    app.state.store, app.state.backend, app.state.settings = store, backend, settings
    errors.install(app)
    app.add_middleware(ServiceMiddleware, settings=settings, metrics=metrics)

    ctx = ServiceContext(settings=settings, store=store, backend=backend, metrics=metrics, auth=auth,
                         limiter=limiter, versions=BundleVersions(store))
    app.state.ctx = ctx
    app.include_router(platform_router)
    app.include_router(rejudge_router)
    app.include_router(operations_router(ctx))
    if learner is not None:
        from judge.service.lti.routes import routers
        from judge.service.lti.side import LearnerSide

        if learner[1] is not None:
            ctx.extras["score_wake"] = learner[1].wake
        app.state.learner_side = side = LearnerSide(ctx, learner[0])
        for router in routers(side):
            app.include_router(router)
        from judge.service.lti.csp import PageHeaders

        app.add_middleware(PageHeaders)  # a Content-Security-Policy on every page of the learner side
    app.openapi = lambda: document(app)  # type: ignore[method-assign]
    return app
