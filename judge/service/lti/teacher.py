"""The teacher's side of LTI 1.3: adding an exercise by Deep Linking 2.0, and the class view.

- A deep-linking launch (``LtiDeepLinkingRequest``) by course staff shows a picker of every problem, a plain
  form (``problem`` and ``csrf``, no JavaScript needed) posted to ``/lti/deep-link/{token}``; the answer is the
  spec's auto-posting form to the platform's ``deep_link_return_url`` with the signed
  ``LtiDeepLinkingResponse`` in ``JWT``: one ``ltiResourceLink`` whose custom parameter is ``problem`` and
  whose ``lineItem`` has a ``scoreMaximum``, so the platform makes the gradebook column.  A learner's
  deep-linking launch is refused.
- A resource-link launch by staff opens the teacher's page for that problem and course (the roster from the
  platform's NRPS joined with the stored submissions, and the class's mistakes: :mod:`.class_view`), with the
  page's API in the learner page's style (session cookie + ``X-CSRF-Token``): ``GET /lti/api/class``,
  ``GET /lti/api/class.csv``, ``GET /lti/api/class/learners/{user_id}``, and rejudging the course's
  submissions after the bundle changed: ``POST /lti/api/class/rejudges`` (a dry run of this course's
  submissions only), ``GET /lti/api/class/rejudges/{id}`` (the matrix), ``POST .../apply``.  A learner's
  session gets 403 there.
"""

from __future__ import annotations

import hmac
import secrets
from html import escape
from typing import Any

from fastapi import APIRouter, Depends, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse, Response

from judge.i18n import messages as m
from judge.i18n.catalog import say
from judge.service import problems
from judge.service.errors import ApiError
from judge.service.learner_view import current_bundle
from judge.service.lti.class_view import NRPS_CLAIM, class_csv, class_view, learner_key, roster, roster_learners
from judge.service.lti.csp import origin, page_headers, return_url_allowed
from judge.service.lti.learner_view import activity_policy
from judge.service.lti.page import language_menu, page_head, say_html, simple_page, words_json
from judge.service.lti.side import (
    CONTEXT_CLAIM,
    DEPLOYMENT_CLAIM,
    PAGE_ERRORS,
    LearnerSide,
    base_url,
    form_of,
    learner_side,
    page_session,
    refuse,
    request_language,
    session_language,
    session_of,
)
from judge.service.lti.tables import LearnerSession, digest
from judge.service.schemas import submission_view
from judge.service.store import StoredSubmission

DEEP_LINKING_CLAIM = "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"
PICKER_SECONDS = 3600
SCORE_MAXIMUM = 1.0

teacher_router = APIRouter()
#: the teacher page's errors: the learner page's, and 409 (no roster service in the launch; a rejudge's state)
TEACHER_ERRORS: dict[int | str, dict[str, Any]] = {**PAGE_ERRORS, 409: PAGE_ERRORS[400]}


# -- Deep Linking 2.0 ----------------------------------------------------------------------------------------
def _case_counts(problem: str) -> tuple[int, int]:
    from judge.problem.loader import load_problem

    cases = load_problem(problem).cases.cases
    public = sum(1 for c in cases if c.visibility == "public")
    return public, len(cases) - public


def _first_line(statement: str) -> str:
    for line in statement.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            return line[:200]
    return ""


def picker_entries(lang: str = "en") -> list[dict]:
    """Every problem of the problems folder: id, title, a line of its statement (in ``lang`` where the bundle is
    translated), its case counts."""
    out = []
    for pid in problems.available():
        words = problems.in_language(pid, lang)
        public, hidden = _case_counts(pid)
        out.append({"id": pid, "title": words["title"], "line": _first_line(words["statement"]),
                    "public": public, "hidden": hidden})
    return out


async def open_picker(side: LearnerSide, request: Request, claims: dict, client_id: str,
                      locale: str | None = None) -> Response:
    """The picker for a staff member's deep-linking launch (its settings kept server-side for the answer), in
    the launch's language (``locale``), else the browser's."""
    settings = claims.get(DEEP_LINKING_CLAIM) or {}
    lang = request_language(request, locale)
    if not settings.get("deep_link_return_url"):
        return refuse(400, m.ERROR_LAUNCH_REFUSED, m.ERROR_NO_RETURN_URL(claim="deep_link_return_url"), request,
                      locale)
    if not return_url_allowed(settings["deep_link_return_url"]):
        return refuse(400, m.ERROR_LAUNCH_REFUSED, m.ERROR_RETURN_NOT_HTTPS(claim="deep_link_return_url"), request,
                      locale)
    token, csrf = secrets.token_urlsafe(24), secrets.token_urlsafe(24)
    await run_in_threadpool(side.lti.kv_set, f"deep-link:{token}", {
        "issuer": claims["iss"], "client_id": client_id, "deployment_id": claims.get(DEPLOYMENT_CLAIM),
        "settings": settings, "csrf": digest(csrf), "lang": lang}, PICKER_SECONDS)
    entries = await run_in_threadpool(picker_entries, lang)
    items = "".join(
        f'<li><label><input type="radio" name="problem" value="{escape(e["id"])}" required> '
        f'<strong>{escape(e["title"])}</strong> <code>{escape(e["id"])}</code></label>'
        f'<p>{escape(e["line"])}</p><p class="hint">'
        f'{escape(say(m.TEACHER_PICKER_CASES, lang, count=e["public"], hidden=e["hidden"]))}</p></li>'
        for e in entries)
    body = (f'<form method="post" action="/lti/deep-link/{escape(token)}">'
            f'<input type="hidden" name="csrf" value="{escape(csrf)}">'
            f'<ul class="picker">{items}</ul><button type="submit">{escape(say(m.TEACHER_PICKER_ADD, lang))}'
            '</button></form>')
    return HTMLResponse(simple_page(say(m.TEACHER_PICKER_TITLE, lang), body, lang), headers=page_headers("'self'"))


def _auto_post(action: str, jwt_value: str, lang: str) -> str:
    return simple_page(say(m.TEACHER_ADDING, lang), (
        f'<form method="post" action="{escape(action)}" id="deep-link-return">'
        f'<input type="hidden" name="JWT" value="{escape(jwt_value)}">'
        f'<noscript><button type="submit">{escape(say(m.TEACHER_CONTINUE, lang))}</button></noscript></form>'
        '<script src="/lti/static/autopost.js"></script>'), lang)


@teacher_router.post("/lti/deep-link/{token}", include_in_schema=False)
async def picked(token: str, request: Request, side: LearnerSide = Depends(learner_side)) -> Response:
    from pylti1p3.deep_link import DeepLink
    from pylti1p3.deep_link_resource import DeepLinkResource
    from pylti1p3.lineitem import LineItem

    form = await form_of(request)
    key = f"deep-link:{token[:64]}"
    stored = await run_in_threadpool(side.lti.kv_get, key)
    if stored is None or not hmac.compare_digest(digest(form.get("csrf", "")), stored["csrf"]):
        return refuse(403, m.ERROR_PICKER_EXPIRED, m.ERROR_PICKER_UNKNOWN(), request)
    locale = stored.get("lang")  # the picker's language (the launch's, else the browser's), proven by its token
    problem = form.get("problem", "")
    if not problems.known(problem):
        return refuse(400, m.ERROR_NO_EXERCISE, m.ERROR_PICK_ONE(problem=repr(problem)), request, locale)
    if not await run_in_threadpool(side.lti.kv_take, key):  # single use
        return refuse(403, m.ERROR_PICKER_EXPIRED, m.ERROR_PICKER_USED(), request, locale)
    back = stored["settings"].get("deep_link_return_url")
    if not return_url_allowed(back):  # checked at launch too: never post the signed answer to script
        return refuse(400, m.ERROR_LAUNCH_REFUSED, m.ERROR_RETURN_NOT_HTTPS(claim="deep_link_return_url"), request,
                      locale)
    title = problems.detail(problem)["title"]
    assert side.tool_config is not None  # the LTI routes are mounted only with a tool configuration
    registration = side.tool_config.find_registration_by_params(stored["issuer"], stored["client_id"])
    resource = (DeepLinkResource().set_url(f"{base_url(request, side.ctx)}/lti/launch").set_title(title)
                .set_custom_params({"problem": problem})
                .set_lineitem(LineItem().set_score_maximum(SCORE_MAXIMUM).set_label(title)))
    link = DeepLink(registration, stored["deployment_id"], stored["settings"])
    jwt_value = link.get_response_jwt([resource])
    return HTMLResponse(_auto_post(back, jwt_value, request_language(request, locale)),
                        headers=page_headers(origin(back)))


# -- the class view --------------------------------------------------------------------------------------------
def course_of_launch(claims: dict, client_id: str) -> dict:
    context = claims.get(CONTEXT_CLAIM) or {}
    nrps = claims.get(NRPS_CLAIM) or {}
    return {"issuer": claims["iss"], "client_id": client_id, "deployment": claims.get(DEPLOYMENT_CLAIM),
            "context": context.get("id", ""), "title": context.get("title"),
            "nrps": nrps.get("context_memberships_url")}


async def _course_roster(side: LearnerSide, session: LearnerSession) -> tuple[dict, list[dict]]:
    """The teacher's course and its roster from the platform (403 for a learner, 409 without NRPS, 503 when the
    platform does not answer)."""
    course = await run_in_threadpool(side.lti.course_of, session.handle)
    if course is None:
        raise ApiError(403, "not_staff", "the class view is for the course's teachers: launch as one")
    if course.get("kind") == "learn":  # a course of /learn: everyone who joined it
        from judge.service.lti.learn import learn_members

        return course, await run_in_threadpool(learn_members, side, course)
    if not course.get("nrps"):
        raise ApiError(409, "no_roster", "the launch carried no Names and Role Provisioning service: enable it "
                       "for this tool in the course (the roster comes from there)")
    try:
        members = await run_in_threadpool(roster, course, side.tool_config)
    except Exception as exc:  # noqa: BLE001 - the platform's roster service down or refusing
        raise ApiError(503, "roster_unavailable", f"the course's roster could not be read: {exc}",
                       headers={"Retry-After": "10"}) from None
    return course, members


async def _class(side: LearnerSide, session: LearnerSession, lang: str = "en") -> dict:
    course, members = await _course_roster(side, session)
    policy = await run_in_threadpool(activity_policy, session.problem, session.feedback)
    bundle = await run_in_threadpool(current_bundle, session.problem) if lang != "en" else None
    return await run_in_threadpool(class_view, side.lti, course, session.problem, members, policy, lang, bundle)


async def _learner_rows(side: LearnerSide, session: LearnerSession, course: dict,
                        learners: list[dict]) -> list[StoredSubmission]:
    """The submissions these roster learners made for the session's problem, oldest first."""
    keys = [learner_key(course, learner["user_id"]) for learner in learners]
    return [row for _, row in await run_in_threadpool(side.lti.class_rows, keys, session.problem)]


@teacher_router.get("/lti/api/class", responses=TEACHER_ERRORS, tags=["teacher page"],
                    summary="The class: roster with attempts, best score, last status; the class's mistakes "
                            "(their explanations in the page's language)")
async def class_json(session: LearnerSession = Depends(session_of), side: LearnerSide = Depends(learner_side),
                     lang: str = Depends(session_language)) -> Any:
    side.read_limit.take(session.learner)
    return await _class(side, session, lang)


@teacher_router.get("/lti/api/class.csv", tags=["teacher page"], response_class=Response,
                    responses={**TEACHER_ERRORS, 200: {"content": {"text/csv": {"schema": {"type": "string"}}},
                                                       "description": "a header and one row per learner"}},
                    summary="The class as CSV: a header and one row per learner")
async def class_csv_api(session: LearnerSession = Depends(session_of),
                        side: LearnerSide = Depends(learner_side)) -> Response:
    side.read_limit.take(session.learner)
    view = await _class(side, session)
    return Response(class_csv(view), media_type="text/csv; charset=utf-8", headers={
        "Content-Disposition": f'attachment; filename="{session.problem}-class.csv"'})


@teacher_router.get("/lti/api/class/learners/{user_id}", responses=TEACHER_ERRORS, tags=["teacher page"],
                    summary="One learner's submissions with full verdicts (hidden cases included: staff see them), "
                            "their texts in the page's language")
async def learner_submissions(user_id: str, session: LearnerSession = Depends(session_of),
                              side: LearnerSide = Depends(learner_side),
                              lang: str = Depends(session_language)) -> Any:
    side.read_limit.take(session.learner)
    course, members = await _course_roster(side, session)
    learner = [m for m in roster_learners(members) if m["user_id"] == user_id]
    if not learner:
        raise ApiError(404, "not_found", f"no learner {user_id!r} in this course's roster")
    rows = await _learner_rows(side, session, course, learner)
    bundle = await run_in_threadpool(current_bundle, session.problem) if lang != "en" else None
    return {"user_id": user_id, "submissions": [_in_language(submission_view(row), lang, bundle)
                                                for row in reversed(rows)]}


def _in_language(view: dict, lang: str, bundle: Any) -> dict:
    """A stored submission's view with its verdict's texts in ``lang`` (rendered from the verdict's message ids;
    staff see the full verdict, so nothing is cut first)."""
    if lang == "en" or not view.get("verdict"):
        return view
    from judge.i18n.localize import localize
    from judge.verdict import Verdict

    try:
        verdict = Verdict.model_validate(view["verdict"])
    except ValueError:  # a verdict this judge cannot read back: shown as stored
        return view
    return {**view, "verdict": localize(verdict, lang, bundle).model_dump(mode="json")}


def teacher_page(session: LearnerSession, title: str, lang: str = "en") -> str:
    """The class view's page in ``lang``: its own words here, teacher.js's in the page's JSON words block."""
    t = {key: escape(say(message, lang)) for key, message in (
        ("loading", m.TEACHER_LOADING), ("mistakes", m.TEACHER_MISTAKES), ("h_mistake", m.TEACHER_HEAD_MISTAKE),
        ("h_learners", m.TEACHER_HEAD_LEARNERS), ("h_submissions", m.TEACHER_HEAD_SUBMISSIONS),
        ("no_mistakes", m.TEACHER_NO_MISTAKES), ("learners", m.TEACHER_LEARNERS), ("csv", m.TEACHER_DOWNLOAD_CSV),
        ("h_learner", m.TEACHER_HEAD_LEARNER), ("h_attempts", m.TEACHER_HEAD_ATTEMPTS),
        ("h_best", m.TEACHER_HEAD_BEST), ("h_last", m.TEACHER_HEAD_LAST),
        ("h_first", m.TEACHER_HEAD_FIRST_ACCEPTED), ("h_mistakes", m.TEACHER_HEAD_MISTAKES),
        ("h_probes", m.TEACHER_HEAD_PROBES), ("rejudge_h", m.TEACHER_REJUDGE_HEADING),
        ("explain", m.TEACHER_REJUDGE_EXPLAIN), ("rejudge", m.TEACHER_REJUDGE), ("apply", m.TEACHER_APPLY),
        ("needs_js", m.TEACHER_NEEDS_JS))}
    heading = say(m.TEACHER_TITLE, lang, title=title)
    who = f'<p class="who">{say_html(m.PAGE_SIGNED_IN, lang, name=escape(session.name))}</p>' if session.name else ""
    return (
        page_head(session, heading, "teacher.js", lang)
        + f"""
<body>
<header><h1>{escape(heading)}</h1>{who}{language_menu(lang)}</header>
<script type="application/json" id="judge-words">{words_json(lang, m.TEACHER_SCRIPT_WORDS)}</script>
<main id="class" data-problem="{escape(session.problem)}">
<p id="class-state" role="status" aria-live="polite">{t["loading"]}</p>
<section aria-labelledby="mistakes-h"><h2 id="mistakes-h">{t["mistakes"]}</h2>
<table id="mistakes"><thead><tr><th>{t["h_mistake"]}</th><th>{t["h_learners"]}</th><th>{t["h_submissions"]}</th></tr></thead>
<tbody></tbody></table><p id="mistakes-empty" hidden>{t["no_mistakes"]}</p></section>
<section aria-labelledby="roster-h"><h2 id="roster-h">{t["learners"]}</h2>
<p><button id="download-csv" type="button">{t["csv"]}</button></p>
<table id="roster"><thead><tr><th>{t["h_learner"]}</th><th>{t["h_attempts"]}</th><th>{t["h_best"]}</th><th>{t["h_last"]}</th>
<th>{t["h_first"]}</th><th>{t["h_mistakes"]}</th><th>{t["h_probes"]}</th></tr></thead><tbody></tbody></table></section>
<section aria-labelledby="rejudge-h"><h2 id="rejudge-h">{t["rejudge_h"]}</h2>
<p>{t["explain"]}</p>
<p><button id="rejudge" type="button">{t["rejudge"]}</button> <span id="rejudge-state" role="status"
aria-live="polite"></span></p>
<table id="rejudge-matrix" hidden><thead></thead><tbody></tbody></table>
<p><button id="rejudge-apply" type="button" hidden>{t["apply"]}</button></p></section>
<section aria-labelledby="learner-h" id="learner-section" hidden><h2 id="learner-h" tabindex="-1"></h2>
<div id="learner-submissions"></div></section>
<noscript><p class="error">{t["needs_js"]}</p></noscript>
</main>
</body>
</html>
"""  # noqa: E501 - a file written verbatim: its lines are its own
    )


@teacher_router.get("/lti/teacher/{handle}", include_in_schema=False)
async def teacher(handle: str, request: Request, side: LearnerSide = Depends(learner_side)) -> Response:
    """The class view in the teacher's language: the menu's ``?lang=``, else the launch's locale, else the
    browser's Accept-Language (a /learn teacher code's session has no locale)."""
    session = await page_session(handle, request, side)
    if isinstance(session, Response):
        return session
    lang = request_language(request, session.locale)
    if await run_in_threadpool(side.lti.course_of, handle) is None:
        return refuse(403, m.ERROR_NOT_A_TEACHER, m.ERROR_CLASS_FOR_TEACHERS(), request, session.locale)
    title = (await run_in_threadpool(problems.in_language, session.problem, lang))["title"]
    return HTMLResponse(teacher_page(session, title, lang), headers=page_headers())


# -- rejudging the course's submissions ---------------------------------------------------------------------
def _course_tag(course: dict) -> str:
    """Who asked for a rejudge from the teacher's page: the course (a teacher sees only their course's)."""
    return "lti-course:" + digest("\n".join([course["issuer"], course["client_id"], str(course["deployment"]),
                                             str(course["context"])]))[:32]


async def _course_rejudge(side: LearnerSide, session: LearnerSession, rid: str) -> dict:
    from judge.service.rejudge import RejudgeStore

    course = await run_in_threadpool(side.lti.course_of, session.handle)
    view = await run_in_threadpool(RejudgeStore(side.ctx.store).view, rid[:64])
    if course is None or view is None or view.get("requested_by") != _course_tag(course):
        raise ApiError(404, "not_found", f"no rejudge {rid!r} of this course")
    return view


@teacher_router.post("/lti/api/class/rejudges", status_code=202, responses=TEACHER_ERRORS, tags=["teacher page"],
                     summary="A dry run: this course's submissions graded again with the bundle as it is now")
async def class_rejudge(
    session: LearnerSession = Depends(session_of), side: LearnerSide = Depends(learner_side)
) -> Any:
    from judge.problem.loader import load_problem
    from judge.service.rejudge import RejudgeOpen, RejudgeStore, RejudgeTooLarge

    side.submit_limit.take(session.learner)
    course, members = await _course_roster(side, session)  # the roster: only this course's learners
    ids = [row.id for row in await _learner_rows(side, session, course, roster_learners(members))]
    digest_now = (await run_in_threadpool(load_problem, session.problem)).digest
    try:  # one open rejudge per course and problem, of a bounded size
        rid = await run_in_threadpool(RejudgeStore(side.ctx.store).create, session.problem, True, digest_now,
                                      _course_tag(course), ids, None, side.ctx.settings.max_rejudge_items)
    except RejudgeOpen as exc:
        raise ApiError(409, "rejudge_open", str(exc)) from None
    except RejudgeTooLarge as exc:
        raise ApiError(422, "rejudge_too_large", str(exc)) from None
    side.ctx.backend.rejudge(rid)
    return await _course_rejudge(side, session, rid)


@teacher_router.get("/lti/api/class/rejudges/{rejudge_id}", responses=TEACHER_ERRORS, tags=["teacher page"],
                    summary="The course's rejudge: its state and matrix of old and new statuses")
async def class_rejudge_view(rejudge_id: str, session: LearnerSession = Depends(session_of),
                             side: LearnerSide = Depends(learner_side)) -> Any:
    side.read_limit.take(session.learner)
    return await _course_rejudge(side, session, rejudge_id)


@teacher_router.post("/lti/api/class/rejudges/{rejudge_id}/apply", responses=TEACHER_ERRORS, tags=["teacher page"],
                     summary="Make the course's finished rejudge current (scores posted again where they change)")
async def class_rejudge_apply(rejudge_id: str, session: LearnerSession = Depends(session_of),
                              side: LearnerSide = Depends(learner_side)) -> Any:
    from judge.service.rejudge import RejudgeConflict, RejudgeStore

    await _course_rejudge(side, session, rejudge_id)
    try:
        await run_in_threadpool(RejudgeStore(side.ctx.store).apply, rejudge_id)
    except RejudgeConflict as exc:
        raise ApiError(409, "conflict", str(exc)) from None
    wake = side.ctx.extras.get("score_wake")
    if wake is not None:
        wake()
    return await _course_rejudge(side, session, rejudge_id)
