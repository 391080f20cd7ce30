"""The learner side: LTI 1.3 (``/lti/login``, ``/lti/launch``, ``/lti/jwks``; a teacher's launches go on to
:mod:`judge.service.lti.teacher`), the learner page
(``/lti/page/{handle}``, also reached from ``/learn/{problem}`` with a course's access code) and the
page's API (``/lti/api/submissions``).

A session is one launch: one learner, one problem.  The page's calls carry the session cookie (set at
launch, ``judge-lti-<handle>``) and the CSRF token from the page's ``<meta name="csrf-token">`` as
``X-CSRF-Token``; the token names the session, the cookie proves the browser holds it.  Platform API
tokens are never accepted here, and these sessions are never accepted by ``/v1``.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Body, Depends, Header, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field

from judge.feedback import MessageRef
from judge.i18n import messages as m
from judge.i18n.catalog import say
from judge.i18n.negotiate import negotiate, supported
from judge.problem.feedback_policy import FeedbackPolicy  # noqa: TC001 - a parameter's type, read at run time
from judge.service import probes, problems
from judge.service.errors import ApiError
from judge.service.lti.activity import launch_feedback
from judge.service.lti.adapter import Cookies, DatabaseStorage, Launch, Login, LtiRequest, Sessions
from judge.service.lti.csp import page_headers
from judge.service.lti.learner_view import activity_policy, learner_verdict
from judge.service.lti.page import render_page
from judge.service.lti.side import (
    AGS_CLAIM,
    CONTEXT_CLAIM,
    CUSTOM_CLAIM,
    DEEP_LINKING,
    DEPLOYMENT_CLAIM,
    LEARN_PLATFORM,
    LTI_PLATFORM,
    MESSAGE_TYPE_CLAIM,
    PAGE_ERRORS,
    ROLES_CLAIM,
    SCORE_SCOPE,
    STATIC,
    LearnerSide,
    base_url,
    form_of,
    is_secure,
    learner_side,
    log,
    page_session,
    refuse,
    request_language,
    session_language,
    session_of,
)
from judge.service.lti.tables import LearnerSession, digest
from judge.service.schemas import submission_view
from judge.service.settings import SCORE_RULES
from judge.service.store import NewSubmission, QueueFull, StoredSubmission, TenantQueueFull


class LearnerSubmissionIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    source: str = Field(description="the learner's Python file, or a notebook's text (.ipynb)")


class LearnerSubmission(BaseModel):
    id: str
    state: str
    problem: str
    created_at: str | None = None
    finished_at: str | None = None
    verdict: dict[str, Any] | None = Field(None, description="the learner's view of the verdict "
                                                            "(hidden cases without values or output)")


class LearnerHistory(BaseModel):
    submissions: list[LearnerSubmission]


def learner_json(row: StoredSubmission, policy: FeedbackPolicy, times: probes.Times, lang: str = "en") -> dict:
    """A submission as its learner sees it: the verdict cut by ``policy``, and by the probing limit counted on
    ``times`` (the learner's submissions of the problem around it: :mod:`judge.service.probes`), in ``lang``."""
    view = submission_view(row)
    back_at = probes.back_at(policy, times, row) if probes.needs_count(policy) else None
    return {"id": view["id"], "state": view["state"], "problem": view["problem"], "created_at": view["created_at"],
            "finished_at": view["finished_at"],
            "verdict": learner_verdict(view["verdict"], policy, None, back_at, lang=lang)}


async def _learner_views(side: LearnerSide, session: LearnerSession, rows: list[StoredSubmission],
                         lang: str = "en") -> list[dict]:
    """The rows as the session's learner sees them, under the activity's policy."""
    policy = await run_in_threadpool(activity_policy, session.problem, session.feedback)
    times: probes.Times = []
    if rows and probes.needs_count(policy):
        times = await run_in_threadpool(probes.lti_times, side.ctx.store, session.learner, session.problem,
                                        *probes.span(policy, rows))
    return [learner_json(r, policy, times, lang) for r in rows]


# -- the page and its API ------------------------------------------------------------------------------
page_router = APIRouter()
PRESENTATION_CLAIM = "https://purl.imsglobal.org/spec/lti/claim/launch_presentation"


@page_router.get("/lti/static/{name}", include_in_schema=False)
async def static(name: str) -> Response:
    path = STATIC / name
    if name not in ("learner.js", "learner.css", "teacher.js", "autopost.js", "cookiecheck.js") or not path.is_file():
        raise ApiError(404, "not_found", f"no static file {name!r}")
    return FileResponse(path, headers={"Cache-Control": "public, max-age=3600"})


@page_router.get("/lti/page/{handle}", include_in_schema=False)
async def page(handle: str, request: Request, side: LearnerSide = Depends(learner_side),
               lang: str | None = Query(None),
               accept_language: str | None = Header(None)) -> Response:
    session = await page_session(handle, request, side)
    if isinstance(session, Response):
        return session
    language = negotiate((lang or "")[:40], session.locale, (accept_language or "")[:2000])
    detail = await run_in_threadpool(problems.detail, session.problem)
    words = await run_in_threadpool(problems.in_language, session.problem, language)
    html = render_page(detail, session, await run_in_threadpool(problems.course_listing), language, words)
    return HTMLResponse(html, headers=page_headers())


@page_router.post("/lti/api/submissions", status_code=202, response_model=LearnerSubmission,
                  responses=PAGE_ERRORS, tags=["learner page"], summary="Submit the learner's file")
async def submit(body: LearnerSubmissionIn = Body(...), session: LearnerSession = Depends(session_of),
                 side: LearnerSide = Depends(learner_side), lang: str = Depends(session_language)) -> Response:
    """Judged like a platform's submission; the answer and later polls show the learner's view."""
    ctx = side.ctx
    side.submit_limit.take(session.learner)
    if len(body.source.encode()) > ctx.settings.max_body_bytes:
        raise ApiError(413, "request_too_large", "source: too large")
    new = NewSubmission(platform=LTI_PLATFORM if session.issuer else LEARN_PLATFORM,
                        problem=session.problem, source=body.source,
                        metadata={"learner": session.learner[:16]}, tenant=session.tenant)
    try:
        await run_in_threadpool(ctx.stamp_versions, [new])
        [(row, _)] = await run_in_threadpool(ctx.store.create, [new], ctx.settings.max_pending,
                                             ctx.settings.tenant_pending_limit)
    except TenantQueueFull as exc:  # this course's burst: its own limit, nobody else's
        raise ApiError(429, "tenant_queue_full", str(exc), headers={"Retry-After": "5"}) from None
    except QueueFull as exc:
        raise ApiError(503, "queue_full", str(exc), headers={"Retry-After": "5"}) from None
    with_scores = bool(session.ags and SCORE_SCOPE in (session.ags.get("scope") or [])
                       and session.ags.get("lineitem") and session.user_id)
    await run_in_threadpool(side.lti.own, row.id, session, with_scores)
    try:
        await run_in_threadpool(ctx.backend.submit, [row.id])
    except Exception:  # noqa: BLE001 - stored, so accepted: the sweeper publishes it again
        log.exception("could not hand submission %s to the queue now; it will be retried", row.id)
    wake = ctx.extras.get("score_wake")
    if wake is not None:
        wake()
    [view] = await _learner_views(side, session, [row], lang)
    return JSONResponse(view, status_code=202, headers={"Location": f"/lti/api/submissions/{row.id}"})


@page_router.get("/lti/api/submissions", response_model=LearnerHistory, responses=PAGE_ERRORS,
                 tags=["learner page"], summary="The learner's submissions for this problem, newest first")
async def history(session: LearnerSession = Depends(session_of), side: LearnerSide = Depends(learner_side),
                  lang: str = Depends(session_language)) -> Any:
    side.read_limit.take(session.learner)
    rows = await run_in_threadpool(side.lti.history, session)
    return {"submissions": await _learner_views(side, session, rows, lang)}


@page_router.get("/lti/api/submissions/{submission_id}", response_model=LearnerSubmission,
                 responses=PAGE_ERRORS, tags=["learner page"], summary="One of the learner's submissions")
async def get_one(submission_id: str, session: LearnerSession = Depends(session_of),
                  side: LearnerSide = Depends(learner_side), lang: str = Depends(session_language)) -> Any:
    side.read_limit.take(session.learner)
    row = await run_in_threadpool(side.lti.owned_row, submission_id[:64], session)
    if row is None:
        raise ApiError(404, "not_found", f"no submission {submission_id!r} of yours")
    [view] = await _learner_views(side, session, [row], lang)
    if view["verdict"] is not None:  # drawn after the verdict: [] once drawn, null until then
        view["verdict"]["pictures"] = await run_in_threadpool(side.lti.pictures_of, row.id)
    return view


# -- LTI 1.3 ---------------------------------------------------------------------------------------------
lti_router = APIRouter()


def _services(side: LearnerSide, request: Request,
              params: dict[str, str]) -> tuple[LtiRequest, Cookies, Sessions, DatabaseStorage]:
    req = LtiRequest(params, dict(request.cookies), is_secure(request, side.ctx))
    storage = DatabaseStorage(side.lti)
    assert side.nonces is not None  # the LTI routes are mounted only with a tool configuration
    return req, Cookies(req), Sessions(storage, side.nonces), storage


async def _params_of(request: Request) -> dict[str, str]:
    params = {k: v for k, v in request.query_params.items()}
    if request.method == "POST":
        params.update(await form_of(request))
    return params


@lti_router.api_route("/lti/login", methods=["GET", "POST"], include_in_schema=False)
async def login(request: Request, side: LearnerSide = Depends(learner_side)) -> Response:
    """OIDC login initiation: check the issuer is registered, set the state cookie, go to the platform."""
    from pylti1p3.exception import LtiException, ToolConfException

    params = await _params_of(request)
    req, cookies, session, storage = _services(side, request, params)
    launch_url = f"{base_url(request, side.ctx)}/lti/launch"  # what the platform has registered
    oidc = Login(req, side.tool_config, session_service=session, cookie_service=cookies,
                 launch_data_storage=storage)
    oidc.nonces = side.nonces  # type: ignore[assignment]  # set with the tool configuration (_services)
    lang = request_language(request)  # the platform's redirect carries no locale: the browser's language
    oidc.enable_check_cookies(main_msg=say(m.LOGIN_NO_COOKIE, lang), click_msg=say(m.LOGIN_NEW_TAB, lang),
                              loading_msg=say(m.LOGIN_OPENING, lang))
    oidc.lang = lang
    try:
        response = await run_in_threadpool(oidc.redirect, launch_url)
    except ToolConfException as exc:  # an issuer (or client id) this tool has no registration for
        return refuse(400, m.ERROR_LAUNCH_REFUSED, m.ERROR_LOGIN_UNREGISTERED(detail=str(exc)), request)
    except (LtiException, KeyError, ValueError) as exc:
        return refuse(400, m.ERROR_LAUNCH_REFUSED, m.ERROR_LOGIN_REFUSED(detail=str(exc)), request)
    return cookies.apply(response)


@lti_router.post("/lti/launch", include_in_schema=False)
async def launch(request: Request, side: LearnerSide = Depends(learner_side)) -> Response:
    """The platform's signed id_token: every check pylti1p3 and this adapter make, then the page."""
    params = await _params_of(request)
    req, cookies, session_service, storage = _services(side, request, params)
    message = Launch(req, side.tool_config, session_service=session_service, cookie_service=cookies,
                     launch_data_storage=storage)
    message.set_launch_data_lifetime(3600)
    claims = await _validated_claims(message, request)
    if isinstance(claims, Response):
        return claims
    from judge.service.lti import teacher
    from judge.service.lti.roles import is_staff

    presentation = claims.get(PRESENTATION_CLAIM)
    locale = supported(presentation.get("locale")) if isinstance(presentation, dict) else None

    # staff of this context only: its membership roles, and a context to be staff of
    staff = is_staff(claims.get(ROLES_CLAIM)) and bool((claims.get(CONTEXT_CLAIM) or {}).get("id"))
    if claims.get(MESSAGE_TYPE_CLAIM) == DEEP_LINKING:
        if not staff:
            return refuse(403, m.ERROR_LAUNCH_REFUSED, m.ERROR_DEEP_LINK_LEARNER(), request, locale)
        return cookies.apply(await teacher.open_picker(side, request, claims, message.get_client_id(), locale))
    problem = str((claims.get(CUSTOM_CLAIM) or {}).get("problem", "")).strip()
    if not problems.known(problem):
        known = ", ".join(problems.available())
        return refuse(400, m.ERROR_NO_EXERCISE, m.ERROR_UNKNOWN_PROBLEM(problem=repr(problem), parameter=
                      "problem=<id>", known=known) if problem else
                      m.ERROR_NO_PROBLEM(parameter="problem=<id>", known=known), request, locale)
    score_rule = str((claims.get(CUSTOM_CLAIM) or {}).get("score_rule", "")).strip().lower() or None
    if score_rule is not None and score_rule not in SCORE_RULES:
        return refuse(400, m.ERROR_LAUNCH_REFUSED, m.ERROR_SCORE_RULE(parameter="score_rule",
                      rules=", ".join(SCORE_RULES)), request, locale)
    feedback = launch_feedback(problem, claims.get(CUSTOM_CLAIM) or {})
    if isinstance(feedback, MessageRef):
        return refuse(400, m.ERROR_LAUNCH_REFUSED, feedback, request, locale)
    user = str(claims.get("sub") or "")
    if not user:
        return refuse(400, m.ERROR_LAUNCH_REFUSED, m.ERROR_NO_USER(claim="sub"), request, locale)
    context = (claims.get(CONTEXT_CLAIM) or {}).get("id", "")
    learner = digest("\n".join([claims["iss"], message.get_client_id(), str(claims.get(DEPLOYMENT_CLAIM)),
                                str(context), user]))
    ags = claims.get(AGS_CLAIM)
    name = claims.get("name") or claims.get("given_name") or None
    tenant = "lti:" + digest("\n".join([claims["iss"], message.get_client_id(), str(claims.get(DEPLOYMENT_CLAIM)),
                                        str(context)]))[:32]  # the deployment's course: one tenant of the queue
    opened, secret = await run_in_threadpool(
        side.lti.open_session, learner, problem, user, name, claims["iss"], message.get_client_id(),
        ags if isinstance(ags, dict) else None, tenant, score_rule, feedback, locale)
    if staff:  # the teacher's page for this problem and course, instead of the learner page
        await run_in_threadpool(side.lti.mark_staff, opened.handle,
                                teacher.course_of_launch(claims, message.get_client_id()))
        log.info("LTI launch: %s, a teacher of %s, for problem %s (session %s)", claims["iss"],
                 (claims.get(CONTEXT_CLAIM) or {}).get("id", ""), problem, opened.handle)
        return cookies.apply(side.open_page(request, opened, secret, f"/lti/teacher/{opened.handle}"))
    log.info("LTI launch: %s for problem %s (session %s)", claims["iss"], problem, opened.handle)
    return cookies.apply(side.open_page(request, opened, secret))


async def _validated_claims(message: Launch, request: Request) -> dict | Response:
    """The launch's claims once pylti1p3 validated them (signature, issuer, audience, expiry, nonce, state,
    deployment) and it is a resource link launch; else the plain page saying which check refused it."""
    from pylti1p3.exception import LtiException, ToolConfException

    try:
        await run_in_threadpool(message.validate)
        claims = message.get_launch_data()
    except ToolConfException as exc:  # an issuer, or an audience (client id), with no registration
        return refuse(403, m.ERROR_LAUNCH_REFUSED, m.ERROR_UNREGISTERED(detail=str(exc)), request)
    except LtiException as exc:
        text = str(exc.args[0] if exc.args else exc)
        if "state" in text.lower():
            return refuse(403, m.ERROR_COOKIES_BLOCKED, [m.ERROR_STATE_CHECK(detail=text), m.ERROR_COOKIE_BLOCKED()],
                          request)
        return refuse(403, m.ERROR_LAUNCH_REFUSED, m.ERROR_LAUNCH_CHECK(detail=text), request)
    except Exception as exc:  # noqa: BLE001 - a malformed token or a platform's JWKS that cannot be read
        return refuse(400, m.ERROR_LAUNCH_REFUSED, m.ERROR_LAUNCH_CHECK(detail=f"{type(exc).__name__}: {exc}"),
                      request)
    if claims.get(MESSAGE_TYPE_CLAIM) not in ("LtiResourceLinkRequest", DEEP_LINKING):
        return refuse(400, m.ERROR_LAUNCH_REFUSED, m.ERROR_MESSAGE_TYPE(type=repr(claims.get(MESSAGE_TYPE_CLAIM))),
                      request)
    return claims  # type: ignore[return-value]  # pylti1p3's TLaunchData: a TypedDict of the claims


@lti_router.get("/lti/jwks", tags=["lti"], summary="The tool's public keys (JWKS) for platforms")
async def jwks(side: LearnerSide = Depends(learner_side)) -> Any:
    assert side.tool_config is not None  # the LTI routes are mounted only with a tool configuration
    return side.tool_config.get_jwks()


def routers(side: LearnerSide) -> list[APIRouter]:
    """The routers to include: the page and its API always; the access-code sign-in where courses have
    codes (JUDGE_LEARN_CODES); LTI 1.3 where platforms are registered; the teacher's side with either (a
    teacher's launch, or a course's teacher code: JUDGE_LEARN_TEACHER_CODES)."""
    from judge.service.lti.learn import learn_router
    from judge.service.lti.teacher import teacher_router

    settings = side.ctx.settings
    lti = side.tool_config is not None
    return ([page_router] + ([learn_router] if settings.learn_codes else []) + ([lti_router] if lti else [])
            + ([teacher_router] if lti or (settings.learn_codes and settings.learn_teacher_codes) else []))
