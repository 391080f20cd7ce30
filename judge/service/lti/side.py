"""What the learner side's and the teacher side's routes share: the LTI claims' names, the session a page's
API call belongs to (CSRF token + cookie), the plain error page, and :class:`LearnerSide`, the state kept on
the app.  Routes: :mod:`.routes` (login, launch, the learner page) and :mod:`.teacher` (deep linking, the class).
"""

from __future__ import annotations

import hmac
import logging
from html import escape
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

from fastapi import Depends, Header, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from judge.feedback import MessageRef  # noqa: TC001 - a parameter's type, read at run time
from judge.i18n import messages as m
from judge.i18n.catalog import Message, render, say
from judge.i18n.negotiate import negotiate
from judge.service.auth import RateLimiter
from judge.service.context import ServiceContext
from judge.service.errors import ApiError
from judge.service.lti.adapter import Nonces, set_cookie
from judge.service.lti.guesses import GuessLimits
from judge.service.lti.page import simple_page
from judge.service.lti.tables import SESSION_SECONDS, LearnerSession, LtiStore, digest
from judge.service.schemas import ErrorBody

log = logging.getLogger("judge.service.lti")
STATIC = Path(__file__).resolve().parent.parent / "static"
CUSTOM_CLAIM = "https://purl.imsglobal.org/spec/lti/claim/custom"
AGS_CLAIM = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
CONTEXT_CLAIM = "https://purl.imsglobal.org/spec/lti/claim/context"
DEPLOYMENT_CLAIM = "https://purl.imsglobal.org/spec/lti/claim/deployment_id"
MESSAGE_TYPE_CLAIM = "https://purl.imsglobal.org/spec/lti/claim/message_type"
ROLES_CLAIM = "https://purl.imsglobal.org/spec/lti/claim/roles"
DEEP_LINKING = "LtiDeepLinkingRequest"
SCORE_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
LTI_PLATFORM = "lti:learners"  # the submissions' platform column; ':' can never be in an API token's name
LEARN_PLATFORM = "learn:codes"
COOKIE_BLOCKED = m.ERROR_COOKIE_BLOCKED.text  # the page API's JSON says it in English (for programs)
PAGE_ERRORS: dict[int | str, dict[str, Any]] = {code: {"model": ErrorBody} for code in (400, 401, 403, 404, 413,
                                                                                          422, 429, 503)}


def is_secure(request: Request, ctx: ServiceContext) -> bool:
    if ctx.settings.public_url:
        return ctx.settings.public_url.startswith("https://")
    return request.url.scheme == "https"


def base_url(request: Request, ctx: ServiceContext) -> str:
    return ctx.settings.public_url or str(request.base_url).rstrip("/")


async def form_of(request: Request) -> dict[str, str]:
    """An HTML form's fields (application/x-www-form-urlencoded, what LMSs and the sign-in form post)."""
    body = (await request.body()).decode("utf-8", errors="replace")
    return {k: v[0] for k, v in parse_qs(body, keep_blank_values=True).items()}


def request_language(request: Request, locale: str | None = None) -> str:
    """The language of a page a person reads: the menu's ``?lang=``, else ``locale`` (the session's or the
    launch's, already one of the judge's), else the browser's Accept-Language, else English.  Only ever one of
    the judge's languages: the raw values choose a catalog, never reach a page."""
    return negotiate(request.query_params.get("lang", "")[:40], locale,
                     request.headers.get("accept-language", "")[:2000])


def refuse(status: int, title: Message, said: MessageRef | list[MessageRef], request: Request,
           locale: str | None = None) -> HTMLResponse:
    """A plain error page in the reader's language (:func:`request_language`; ``locale``: the session's or the
    launch's when there is one) and one log line, in English; never a traceback.  ``said``: the sentence(s),
    whose parameters carry the technical detail exactly as it came (a claim's name, the library's words)."""
    lang = request_language(request, locale)
    refs = said if isinstance(said, list) else [said]
    client = request.client.host if request.client else "?"
    log.warning("LTI %s refused (%s): %s", request.url.path, client, " ".join(render(r, "en") for r in refs))
    text = " ".join(render(r, lang) for r in refs)
    return HTMLResponse(simple_page(say(title, lang), f"<p>{escape(text)}</p>", lang), status_code=status)


class LearnerSide:
    """What the learner side's routes share: the LTI tables, the tool's registrations, the page API's limits.
    ``create_app`` makes one and keeps it on the app; routes ask for it with ``Depends(learner_side)``."""

    def __init__(self, ctx: ServiceContext, tool_config: Any | None) -> None:
        self.ctx = ctx
        self.lti = LtiStore(ctx.store)
        self.tool_config = tool_config
        self.nonces = Nonces(tool_config.secret("lti-nonce")) if tool_config is not None else None
        settings = ctx.settings
        self.submit_limit = RateLimiter(settings.learner_rate_per_second, settings.learner_rate_burst)
        self.read_limit = RateLimiter(10.0, 60.0)
        self.guesses = GuessLimits.of(settings.learn_guess_limits)  # wrong access codes and personal codes at /learn
        # sessions (rows) a right code may open at /learn: per learner, and joins per client address (a class
        # behind one address joins at once; a script that holds the course's code does not fill the tables)
        self.opens = RateLimiter(0.2, 20.0)
        self.joins = RateLimiter(1.0, 120.0)

    def open_page(self, request: Request, session: LearnerSession, secret: str, to: str | None = None,
                  into: Response | None = None) -> Response:
        """The answer that opens the session's page: a redirect there (or ``into``, given), with its cookie."""
        response = into if into is not None else RedirectResponse(to or f"/lti/page/{session.handle}", status_code=303)
        set_cookie(response, f"judge-lti-{session.handle}", secret, SESSION_SECONDS, is_secure(request, self.ctx))
        return response


def learner_side(request: Request) -> LearnerSide:
    return request.app.state.learner_side


async def session_of(request: Request, side: LearnerSide = Depends(learner_side),
                     x_csrf_token: str | None = Header(None, description="the page's <meta name=\"csrf-token\">"),
                     ) -> LearnerSession:
    """The page call's session: named by its CSRF token, proven by the browser's cookie."""
    if not x_csrf_token:
        raise ApiError(403, "csrf_missing", "missing X-CSRF-Token (the page's <meta name=\"csrf-token\">)")
    found = await run_in_threadpool(side.lti.session, None, x_csrf_token[:100])
    if found is None:
        raise ApiError(403, "csrf_invalid", "unknown or expired X-CSRF-Token: launch the activity again")
    session, secret_hash = found
    cookie = request.cookies.get(f"judge-lti-{session.handle}")
    if not cookie:
        raise ApiError(401, "cookie_missing", COOKIE_BLOCKED)
    if not hmac.compare_digest(digest(cookie), secret_hash):
        raise ApiError(403, "session_mismatch", "this browser's session cookie belongs to another launch")
    return session


async def page_session(handle: str, request: Request, side: LearnerSide) -> LearnerSession | HTMLResponse:
    """The session a page's URL names, if this browser's cookie proves it holds it; else the plain page
    saying why (a page GET carries no CSRF token: the cookie is the proof).  A refusal speaks the browser's
    language, not the session's: a browser that cannot prove the session learns nothing of it, its language
    included."""
    found = await run_in_threadpool(side.lti.session, handle[:32])
    if found is None:
        return refuse(404, m.ERROR_SESSION_ENDED, m.ERROR_SESSION_UNKNOWN(), request)
    session, secret_hash = found
    cookie = request.cookies.get(f"judge-lti-{handle}")
    if not cookie:
        return refuse(401, m.ERROR_COOKIES_BLOCKED, m.ERROR_COOKIE_BLOCKED(), request)
    if not hmac.compare_digest(digest(cookie), secret_hash):
        return refuse(403, m.ERROR_NOT_YOUR_SESSION, m.ERROR_ANOTHER_SESSION(), request)
    return session


def session_language(lang: str | None = Query(None, max_length=40, description="the language of the page and the "
                                              "verdict's texts: en, fr or ru (the page's language menu); default: "
                                              "the launch's locale, then Accept-Language"),
                     accept_language: str | None = Header(None),
                     session: LearnerSession = Depends(session_of)) -> str:
    """The language of a page's API request (the learner's or the teacher's): the menu's choice, else the
    launch's locale kept with the session, else the browser's Accept-Language, else English; only ever one of
    the judge's languages."""
    return negotiate(lang, session.locale, (accept_language or "")[:2000])
