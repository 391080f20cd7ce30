"""Errors of the HTTP API: always JSON ``{"code": ..., "message": ...}``."""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match

from judge.service.store import STORE_AWAY

#: Seconds a client is asked to wait when the store is away (a PostgreSQL restart takes a few).
STORE_RETRY_AFTER = 5

_CODES = {400: "bad_request", 401: "unauthorized", 403: "forbidden", 404: "not_found", 405: "method_not_allowed",
          413: "request_too_large", 422: "invalid_request", 429: "rate_limited", 503: "unavailable"}


class ApiError(Exception):
    def __init__(self, status: int, code: str, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status, self.code, self.message, self.headers = status, code, message, headers


def error_response(status: int, code: str, message: str, headers: dict[str, str] | None = None,
                   **extra: object) -> JSONResponse:
    return JSONResponse({"code": code, "message": message, **extra}, status_code=status, headers=headers)


def _where(loc: tuple) -> str:
    parts = [str(p) for p in loc if p not in ("body",)]
    return ".".join(parts) or "body"


def allowed_methods(request: Request) -> list[str]:
    """The methods of every route matching the request's path (Starlette lists only the first route's)."""
    methods: set[str] = set()
    for route in request.app.routes:
        match, _ = route.matches({**request.scope, "method": "GET"}) if hasattr(route, "matches") else (None, None)
        if match is not None and match != Match.NONE:
            methods |= set(getattr(route, "methods", None) or ())
    return sorted(methods)


def install(app: FastAPI) -> None:
    @app.exception_handler(ApiError)
    async def _api_error(_request: Request, exc: ApiError) -> JSONResponse:
        headers = dict(exc.headers or {})
        if exc.status == 401:
            headers.setdefault("WWW-Authenticate", "Bearer")
        return error_response(exc.status, exc.code, exc.message, headers)

    async def _store_away(_request: Request, exc: Exception) -> JSONResponse:
        return error_response(503, "store_unavailable",
                              f"the judge's database is unreachable ({type(exc).__name__}): the request was not "
                              f"carried out; retry in {STORE_RETRY_AFTER} s", {"Retry-After": str(STORE_RETRY_AFTER)})

    for kind in STORE_AWAY:
        app.add_exception_handler(kind, _store_away)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        headers = dict(getattr(exc, "headers", None) or {})
        if exc.status_code == 405:  # every method the path has, not only the first route's
            headers["Allow"] = ", ".join(allowed_methods(request))
        return error_response(exc.status_code, _CODES.get(exc.status_code, "error"), str(exc.detail), headers)

    @app.exception_handler(RequestValidationError)
    async def _invalid(_request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = exc.errors()
        first = errors[0] if errors else {"loc": (), "msg": "invalid request"}
        message = f"{_where(tuple(first.get('loc', ())))}: {first.get('msg', 'invalid')}"
        if len(errors) > 1:
            message += f" (and {len(errors) - 1} more problems)"
        details = [{"loc": [str(p) for p in e.get("loc", ())], "msg": e.get("msg", "")} for e in errors[:20]]
        return error_response(422, "invalid_request", message, details=details)
