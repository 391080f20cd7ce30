"""``/learn/{problem}``: the exercise without an LMS, for a course with an access code (``JUDGE_LEARN_CODES``).

A name typed at sign-in is no identity (two learners may share one, and a classmate may type yours), so:

- joining (course, the course's access code, a name) makes a new learner of that course with a random id
  and a **personal code**, shown once on the answer and kept in the browser's ``judge-learn`` cookie (only
  its SHA-256 is stored).  The learner's verdicts are filed under the id; nobody else's name or code reaches
  them.  Joining again from a browser that holds the code, with the same course and name, is the same learner.
- coming back: the cookie alone opens the exercise ("Continue"); from another browser, the personal code does.
- the course's teacher code (``JUDGE_LEARN_TEACHER_CODES``) opens the teacher's page of that course
  (:mod:`.teacher`): the course's learners are everyone who joined it.

Every code typed here is a guess until it matches: :mod:`.guesses` limits wrong ones per client address, per
course and for the server.  Forms post only to this origin (``Origin``/``Sec-Fetch-Site`` checked), so no
other site can sign a browser in as someone else.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from html import escape
from urllib.parse import urlsplit

from fastapi import APIRouter, Depends, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse, Response

from judge.i18n import messages as m
from judge.i18n.catalog import Message, say
from judge.i18n.negotiate import negotiate, supported
from judge.service import problems
from judge.service.auth import RateLimiter  # noqa: TC001 - a parameter's type
from judge.service.errors import ApiError
from judge.service.lti.csp import page_headers
from judge.service.lti.page import language_menu, say_html, simple_page
from judge.service.lti.roles import MEMBERSHIP
from judge.service.lti.side import LearnerSide, form_of, is_secure, learner_side, log, refuse
from judge.service.lti.tables import LearnLearner, digest

COOKIE = "judge-learn"
COOKIE_SECONDS = 180 * 86400
CODE_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"  # Crockford's base 32: no I, L, O, U to misread
CODE_GROUPS = 5  # of 4 characters: 100 bits

learn_router = APIRouter()
#: the sign-in forms' pages: they post here only, and with their Origin (see :func:`_cross_site`)
FORM_HEADERS = page_headers("'self'", referrer="same-origin")
#: ``Sec-Fetch-Site`` of a request from this site's own page, or one the user typed
OWN_FETCHES = frozenset({"same-origin", "none"})


def new_code() -> str:
    return "-".join("".join(secrets.choice(CODE_ALPHABET) for _ in range(4)) for _ in range(CODE_GROUPS))


def canonical(code: str) -> str:
    """A personal code as typed, in its one spelling: case, dashes and spaces do not matter, nor O for 0."""
    normal = "".join(c for c in code.upper() if c.isascii() and c.isalnum()).translate(str.maketrans("OIL", "011"))
    return "-".join(normal[i:i + 4] for i in range(0, len(normal), 4))


def code_hash(code: str) -> str:
    """The stored form of a personal code."""
    return hashlib.sha256(f"judge-learn\n{canonical(code)}".encode()).hexdigest()


def learn_course(course: str) -> dict:
    """A ``/learn`` course as the teacher's page knows courses (see :func:`.class_view.learner_key`)."""
    return {"kind": "learn", "issuer": "learn", "client_id": "", "deployment": "", "context": course,
            "title": course, "nrps": None}


def learn_members(side: LearnerSide, course: dict) -> list[dict]:
    """The roster of a ``/learn`` course, in the NRPS shape: everyone who joined it, as learners."""
    return [{"user_id": learner.id, "name": learner.name, "status": "Active", "roles": [MEMBERSHIP + "#Learner"]}
            for learner in side.lti.learn_roster(course["context"])]


def _client(request: Request) -> str:
    return request.client.host if request.client else "?"


def _cross_site(request: Request) -> bool:
    """A form posted by another site's page: the browser says where it comes from (``Sec-Fetch-Site``), or,
    a browser too old for that, its ``Origin`` differs (the forms' pages send it: ``Referrer-Policy:
    same-origin``).  A client that is no browser sends neither, and has no one else's cookies to misuse."""
    fetch_site = request.headers.get("sec-fetch-site")
    if fetch_site is not None:
        return fetch_site not in OWN_FETCHES
    origin = request.headers.get("origin")
    if origin is None:
        return False
    return origin == "null" or urlsplit(origin).netloc.lower() != request.headers.get("host", "").lower()


def learn_language(request: Request) -> str:
    """The sign-in pages' language: the menu's ``?lang=``, else the browser's Accept-Language, else English."""
    return negotiate(request.query_params.get("lang", "")[:40], request.headers.get("accept-language"))


def _forms(problem: str, learner: LearnLearner | None, note: Message | None = None, lang: str = "en") -> str:
    action = f"/learn/{escape(problem)}?lang={lang}"  # the answer speaks the language the form was in
    t = {key: escape(say(message, lang)) for key, message in (
        ("continue", m.LEARN_CONTINUE), ("first", m.LEARN_FIRST_TIME), ("course", m.LEARN_COURSE),
        ("code", m.LEARN_ACCESS_CODE), ("name", m.LEARN_YOUR_NAME), ("open", m.LEARN_OPEN),
        ("back", m.LEARN_COMING_BACK), ("personal", m.LEARN_PERSONAL_CODE))}
    signed_in = say_html(m.LEARN_SIGNED_IN, lang, name=f"<strong>{escape(learner.name)}</strong>",
                         course=escape(learner.course)) if learner else ""
    welcome = (f'<form method="post" action="{action}"><input type="hidden" name="action" value="continue">'
               f'<p>{signed_in}</p>'
               f'<button type="submit">{t["continue"]}</button></form>') if learner else ""
    return simple_page(say(m.LEARN_TITLE, lang), (
        language_menu(lang)
        + (f'<p role="alert">{escape(say(note, lang))}</p>' if note else "") + welcome
        + f'<h2>{t["first"]}</h2><form method="post" action="{action}">'
        '<input type="hidden" name="action" value="join">'
        f'<label>{t["course"]} <input name="course" required autocomplete="off"></label>'
        f'<label>{t["code"]} <input name="code" type="password" required></label>'
        f'<label>{t["name"]} <input name="name" maxlength="80"></label>'
        f'<button type="submit">{t["open"]}</button></form>'
        f'<h2>{t["back"]}</h2><form method="post" action="{action}">'
        '<input type="hidden" name="action" value="return">'
        f'<label>{t["personal"]} <input name="personal" required autocomplete="off"></label>'
        f'<button type="submit">{t["open"]}</button></form>'), lang)


def _welcome(session_handle: str, learner: LearnLearner, code: str, lang: str = "en") -> str:
    welcome = escape(say(m.LEARN_WELCOME, lang, name=learner.name, course=learner.course))
    return simple_page(say(m.LEARN_PERSONAL_CODE, lang), (
        f'<p>{welcome}</p>'
        f'<p class="personal-code"><strong id="personal-code">{escape(code)}</strong></p>'
        f'<p>{escape(say(m.LEARN_WRITE_IT_DOWN, lang))}</p>'
        f'<p><a href="/lti/page/{escape(session_handle)}?lang={lang}" id="open-exercise">'
        f'{escape(say(m.LEARN_OPEN, lang))}</a></p>'), lang)


def _remember(response: Response, request: Request, side: LearnerSide, code: str) -> Response:
    response.set_cookie(COOKIE, code, max_age=COOKIE_SECONDS, path="/learn/", httponly=True,
                        secure=is_secure(request, side.ctx), samesite="lax")
    return response


async def _cookie_learner(request: Request, side: LearnerSide) -> tuple[LearnLearner, str] | None:
    code = request.cookies.get(COOKIE, "")
    if not code or len(code) > 64:
        return None
    learner = await run_in_threadpool(side.lti.learn_learner, code_hash(code))
    return (learner, code) if learner is not None else None


def _spend(limit: RateLimiter, key: str) -> bool:
    """Whether ``key`` may open one more session (each is a row): True, or False when it opened too many."""
    try:
        limit.take(key)
    except ApiError:
        return False
    return True


def learn_tenant(course: str) -> str:
    """A /learn course's tenant of the queue: its submissions share that course's pending limit."""
    return "learn:" + digest(course)[:32]


async def _open(request: Request, side: LearnerSide, learner: LearnLearner, problem: str) -> Response:
    if not _spend(side.opens, learner.key):
        return refuse(429, m.ERROR_TOO_MANY_SIGN_INS, m.ERROR_LEARNER_TOO_MANY(), request)
    session, secret = await run_in_threadpool(side.lti.open_session, learner.key, problem, learner.id, learner.name,
                                              tenant=learn_tenant(learner.course),
                                              feedback=side.ctx.settings.learn_feedback.get(learner.course))
    lang = request.query_params.get("lang", "")
    return side.open_page(request, session, secret,  # the menu's choice carried on (else the browser's language)
                          f"/lti/page/{session.handle}" + (f"?lang={lang}" if supported(lang) == lang else ""))


@learn_router.get("/learn/{problem}", include_in_schema=False)
async def learn_form(problem: str, request: Request, side: LearnerSide = Depends(learner_side)) -> Response:
    if not problems.known(problem):
        return refuse(404, m.ERROR_NO_SUCH_EXERCISE, m.ERROR_NO_EXERCISE_HERE(problem=repr(problem)), request)
    known = await _cookie_learner(request, side)
    return HTMLResponse(_forms(problem, known[0] if known else None, None, learn_language(request)),
                        headers=FORM_HEADERS)


@learn_router.post("/learn/{problem}", include_in_schema=False)
async def learn_sign_in(problem: str, request: Request, side: LearnerSide = Depends(learner_side)) -> Response:
    if not problems.known(problem):
        return refuse(404, m.ERROR_NO_SUCH_EXERCISE, m.ERROR_NO_EXERCISE_HERE(problem=repr(problem)), request)
    if _cross_site(request):
        return refuse(403, m.ERROR_SIGN_IN_REFUSED, m.ERROR_OWN_PAGE_ONLY(), request)
    data = await form_of(request)
    action = data.get("action", "join")
    known = await _cookie_learner(request, side)
    if action == "continue":
        if known is None:
            return HTMLResponse(_forms(problem, None, m.LEARN_NO_COOKIE, learn_language(request)),
                                status_code=403, headers=FORM_HEADERS)
        return await _open(request, side, known[0], problem)
    if action == "return":
        return await _come_back(request, side, problem, str(data.get("personal", "")))
    return await _join(
        request, side, problem, known, *(str(data.get(k, "")).strip() for k in ("course", "code", "name"))
    )


def _refused(request: Request, problem: str, known: tuple[LearnLearner, str] | None, note: Message,
             status: int = 403) -> HTMLResponse:
    return HTMLResponse(_forms(problem, known[0] if known else None, note, learn_language(request)), status_code=status,
                        headers=FORM_HEADERS)


async def _come_back(request: Request, side: LearnerSide, problem: str, personal: str) -> Response:
    client = _client(request)
    if not side.guesses.allowed(client, None):
        return _refused(request, problem, None, m.LEARN_TOO_MANY_WRONG, 429)
    learner = await run_in_threadpool(side.lti.learn_learner, code_hash(personal[:64]))
    if learner is None:
        side.guesses.failed(client, None)
        log.warning("learn: unknown personal code from %s", client)
        return _refused(request, problem, None, m.LEARN_UNKNOWN_PERSONAL)
    return _remember(await _open(request, side, learner, problem), request, side, canonical(personal[:64]))


async def _join(request: Request, side: LearnerSide, problem: str, known: tuple[LearnLearner, str] | None,
                course: str, code: str, name: str) -> Response:
    settings = side.ctx.settings
    client = _client(request)
    # a made-up course has no bucket of its own (its name is the guesser's): the client's and the server's count
    course_key = course if course in settings.learn_codes or course in settings.learn_teacher_codes else None
    if not side.guesses.allowed(client, course_key):
        log.warning("learn: sign-in to course %r from %s refused: too many wrong codes", course[:64], client)
        return _refused(request, problem, known, m.LEARN_TOO_MANY_WRONG, 429)
    teacher = settings.learn_teacher_codes.get(course, "")
    is_teacher = course_key is not None and bool(teacher) and hmac.compare_digest(code.encode(), teacher.encode())
    expected = settings.learn_codes.get(course, "")
    if not is_teacher and (not expected or not hmac.compare_digest(code.encode(), expected.encode())):
        side.guesses.failed(client, course_key)
        log.warning("learn: sign-in refused for course %r from %s", course[:64], client)
        return _refused(request, problem, known, m.LEARN_WRONG_CODE)
    if is_teacher:
        return await _open_class(request, side, problem, course, name)
    if not name:
        return _refused(request, problem, known, m.LEARN_TYPE_NAME, 400)
    if known is not None and known[0].course == course and known[0].name.casefold() == name[:80].casefold():
        return await _open(request, side, known[0], problem)  # the same learner, signing in again
    if not _spend(side.joins, client):
        return _refused(request, problem, known, m.LEARN_MANY_JOINED, 429)
    personal = new_code()
    learner = await run_in_threadpool(side.lti.learn_join, course, name[:80], code_hash(personal))
    session, secret = await run_in_threadpool(side.lti.open_session, learner.key, problem, learner.id, learner.name,
                                              tenant=learn_tenant(learner.course),
                                              feedback=side.ctx.settings.learn_feedback.get(learner.course))
    log.info("learn: a new learner joined course %r (learner %s)", course[:64], learner.id[:8])
    answer = HTMLResponse(_welcome(session.handle, learner, personal, learn_language(request)),
                          headers=page_headers())
    side.open_page(request, session, secret, into=answer)
    return _remember(answer, request, side, personal)


async def _open_class(request: Request, side: LearnerSide, problem: str, course: str, name: str) -> Response:
    """The course's teacher code: the teacher's page of this course and problem."""
    if not _spend(side.opens, f"learn-teacher\n{course}"):
        return refuse(429, m.ERROR_TOO_MANY_SIGN_INS, m.ERROR_CLASS_TOO_MANY(), request)
    session, secret = await run_in_threadpool(side.lti.open_session, digest(f"learn-teacher\n{course}"), problem,
                                              None, name[:80] or "teacher", tenant=learn_tenant(course),
                                              feedback=side.ctx.settings.learn_feedback.get(course))
    await run_in_threadpool(side.lti.mark_staff, session.handle, learn_course(course))
    log.info("learn: the teacher's page of course %r opened from %s", course[:64], _client(request))
    lang = request.query_params.get("lang", "")
    return side.open_page(request, session, secret,  # the menu's choice carried on (else the browser's language)
                          f"/lti/teacher/{session.handle}" + (f"?lang={lang}" if supported(lang) == lang else ""))

