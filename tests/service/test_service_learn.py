"""``/learn`` without an LMS, attacked over real HTTP against `judge serve`: identities that a classmate who knows
the course's code cannot take, the teacher's code, guesses limited per client, per course and for the server,
and client addresses that only a trusted proxy may name."""

from __future__ import annotations

import re

import httpx
import pytest

from tests.support.service import SOURCES, Server, require_sandbox, service_env, wait_for

PROBLEM = "sinusoidal-pe"
CODES = {"ml101": "open-sesame", "ml102": "other-course-code"}
TEACHER_CODE = "teach-ml101-please"


#: refills slow enough that a busy machine's timing cannot change which guess is the first refused
SLOW_REFILL = "client:0.001/5,course:0.001/20,server:0.001/60"


def _start(work, **env: str) -> Server:  # noqa: ANN001
    require_sandbox()
    return Server(work, f"sqlite:///{work}/judge.sqlite3", service_env(
        JUDGE_LEARN_CODES=",".join(f"{k}:{v}" for k, v in CODES.items()),
        JUDGE_LEARN_TEACHER_CODES=f"ml101:{TEACHER_CODE}", **env), workers=1)


@pytest.fixture(scope="module")
def learn_server(tmp_path_factory):
    srv = _start(tmp_path_factory.mktemp("learn"))
    yield srv
    srv.stop()


@pytest.fixture
def fresh_server(tmp_path):
    """A server of its own: these tests spend its guess limits."""
    srv = _start(tmp_path, JUDGE_LEARN_GUESS_LIMITS=SLOW_REFILL)
    yield srv
    srv.stop()


def browser(learn_server: Server, address: str | None = None, **headers: str) -> httpx.Client:
    transport = httpx.HTTPTransport(local_address=address) if address else None
    return httpx.Client(base_url=learn_server.url, timeout=60, transport=transport, headers=headers)


def join(client: httpx.Client, name: str, course: str = "ml101", code: str | None = None) -> httpx.Response:
    return client.post(f"/learn/{PROBLEM}", data={"action": "join", "course": course,
                                                  "code": CODES[course] if code is None else code, "name": name})


def open_page(client: httpx.Client, answer: httpx.Response) -> str:
    """The exercise's page from a sign-in's answer (the welcome page's link, or a redirect); its CSRF token."""
    if answer.status_code == 200:
        where = re.search(r'href="(/lti/page/[^"]+)"', answer.text).group(1)
    else:
        assert answer.status_code == 303, answer.text
        where = answer.headers["location"]
    page = client.get(where)
    assert page.status_code == 200, page.text
    return re.search(r'<meta name="csrf-token" content="([^"]+)">', page.text).group(1)


def personal_code(answer: httpx.Response) -> str:
    return re.search(r'id="personal-code">([0-9A-Z-]+)<', answer.text).group(1)


def history(client: httpx.Client, csrf: str) -> list[str]:
    answer = client.get("/lti/api/submissions", headers={"X-CSRF-Token": csrf})
    assert answer.status_code == 200, answer.text
    return [s["id"] for s in answer.json()["submissions"]]


def submit(client: httpx.Client, csrf: str) -> str:
    created = client.post("/lti/api/submissions", json={"source": SOURCES["compile_error"]},
                          headers={"X-CSRF-Token": csrf})
    assert created.status_code == 202, created.text
    return created.json()["id"]


# -- identities -------------------------------------------------------------------------------------------
def test_a_classmate_who_knows_the_course_code_cannot_read_or_submit_as_you(learn_server):
    ann = browser(learn_server)
    joined = join(ann, "Ann")
    assert joined.status_code == 200 and "shown only this once" in joined.text
    code = personal_code(joined)
    ann_csrf = open_page(ann, joined)
    mine = submit(ann, ann_csrf)
    wait_for(lambda: ann.get(f"/lti/api/submissions/{mine}", headers={"X-CSRF-Token": ann_csrf}).json()["state"]
             == "done", 120, 0.2, "Ann's verdict")

    mallory = browser(learn_server)
    posing = join(mallory, "Ann")  # the same course, the course's code, Ann's name
    assert posing.status_code == 200 and personal_code(posing) != code, "a name is no identity"
    mallory_csrf = open_page(mallory, posing)
    assert history(mallory, mallory_csrf) == [], "Mallory sees none of Ann's work"
    assert mallory.get(f"/lti/api/submissions/{mine}", headers={"X-CSRF-Token": mallory_csrf}).status_code == 404
    theirs = submit(mallory, mallory_csrf)
    assert history(ann, ann_csrf) == [mine], "and what Mallory submits is not Ann's"

    # Ann from another browser: her personal code, however she types it
    other = browser(learn_server)
    back = other.post(f"/learn/{PROBLEM}", data={"action": "return", "personal": code.lower().replace("-", " ")})
    other_csrf = open_page(other, back)
    assert history(other, other_csrf) == [mine]
    assert theirs not in history(other, other_csrf)
    # and from her first browser, the cookie alone
    form = ann.get(f"/learn/{PROBLEM}")
    assert "Signed in as <strong>Ann</strong>" in form.text
    assert history(ann, open_page(ann, ann.post(f"/learn/{PROBLEM}", data={"action": "continue"}))) == [mine]
    again = join(ann, "ann")  # joining again from her browser, same course and name: the same learner
    assert again.status_code == 303 and history(ann, open_page(ann, again)) == [mine]
    wrong = browser(learn_server).post(f"/learn/{PROBLEM}",
                                       data={"action": "return", "personal": "AAAA-BBBB-CCCC-DDDD-EEEE"})
    assert wrong.status_code == 403 and "/lti/page/" not in wrong.text
    nothing = browser(learn_server).post(f"/learn/{PROBLEM}", data={"action": "continue"})
    assert nothing.status_code == 403


def test_another_site_cannot_sign_a_browser_in(learn_server):
    for headers in ({"Origin": "https://evil.example"}, {"Sec-Fetch-Site": "cross-site"}, {"Origin": "null"}):
        refused = join(browser(learn_server, **headers), "Victim")
        assert refused.status_code == 403 and "personal-code" not in refused.text, headers
    same = join(browser(learn_server, Origin=learn_server.url, **{"Sec-Fetch-Site": "same-origin"}), "Victim")
    assert same.status_code == 200


def test_the_teachers_code_opens_the_class_of_that_course(learn_server):
    learners = {}
    for name in ("Bea", "Bea", "Cai"):
        client = browser(learn_server)
        answer = join(client, name)
        learners.setdefault(name, []).append((client, open_page(client, answer)))
    client, csrf = learners["Cai"][0]
    submit(client, csrf)
    assert client.get("/lti/api/class", headers={"X-CSRF-Token": csrf}).status_code == 403, "a learner is no teacher"

    teacher = browser(learn_server)
    answer = teacher.post(f"/learn/{PROBLEM}", data={"course": "ml101", "code": TEACHER_CODE, "name": "Prof"})
    assert answer.status_code == 303 and answer.headers["location"].startswith("/lti/teacher/"), answer.text
    page = teacher.get(answer.headers["location"])
    assert page.status_code == 200
    teacher_csrf = re.search(r'<meta name="csrf-token" content="([^"]+)">', page.text).group(1)
    body = teacher.get("/lti/api/class", headers={"X-CSRF-Token": teacher_csrf}).json()
    names = sorted(r["name"] for r in body["learners"])
    assert names.count("Bea") == 2 and "Cai" in names, "two learners named Bea are two learners"
    cai = next(r for r in body["learners"] if r["name"] == "Cai")
    assert cai["attempts"] == 1
    subs = teacher.get(f"/lti/api/class/learners/{cai['user_id']}", headers={"X-CSRF-Token": teacher_csrf}).json()
    assert len(subs["submissions"]) == 1
    rejudge = teacher.post("/lti/api/class/rejudges", headers={"X-CSRF-Token": teacher_csrf})
    assert rejudge.status_code == 202, rejudge.text
    view = wait_for(lambda: (lambda v: v if v["state"] not in ("queued", "running") else None)(teacher.get(
        f"/lti/api/class/rejudges/{rejudge.json()['id']}", headers={"X-CSRF-Token": teacher_csrf}).json()),
        120, 0.3, "the course's rejudge")
    assert view["state"] == "done" and view["total"] == sum(r["attempts"] for r in body["learners"]), view
    other_course = teacher.post(f"/learn/{PROBLEM}", data={"course": "ml102", "code": TEACHER_CODE, "name": "P"})
    assert other_course.status_code == 403, "a course's teacher code opens that course only"


# -- guesses ---------------------------------------------------------------------------------------------------
def test_a_forged_forwarded_for_does_not_reset_the_limit(fresh_server):
    """Breach: a new X-Forwarded-For on each guess made every guess a new client."""
    answers = [join(browser(fresh_server, **{"X-Forwarded-For": f"203.0.113.{i}"}), "G", code=f"guess-{i}")
               .status_code for i in range(40)]
    assert answers[:5] == [403] * 5 and set(answers[5:]) == {429}, answers
    assert "203.0.113." not in fresh_server.output(), "the client's address is the socket's"


def test_guesses_at_one_course_from_many_addresses_are_limited(fresh_server):
    answers = [join(browser(fresh_server, f"127.0.0.{i}"), "G", code="guess").status_code for i in range(2, 32)]
    assert answers == [403] * 20 + [429] * 10, answers
    right = join(browser(fresh_server, "127.0.0.99"), "Honest")
    assert right.status_code == 429, "the course's code is not checked while its guesses are spent"
    assert join(browser(fresh_server, "127.0.0.98"), "Other", course="ml102").status_code == 200, \
        "another course is not locked"


def test_guesses_across_courses_are_limited_for_the_server(fresh_server):
    answers = []
    for i in range(14):  # made-up courses (no bucket of their own), 5 guesses from each of 14 addresses
        client = browser(fresh_server, f"127.0.1.{i + 1}")
        answers += [client.post(f"/learn/{PROBLEM}", data={"course": f"course-{i}-{k}", "code": "x", "name": "G"})
                    .status_code for k in range(5)]
    assert answers.count(403) == 60 and answers[60:] == [429] * 10, answers
    assert join(browser(fresh_server, "127.0.2.1"), "Honest", course="ml102").status_code == 429


def test_personal_code_guesses_are_limited(fresh_server):
    client = browser(fresh_server)
    answers = [client.post(f"/learn/{PROBLEM}", data={"action": "return", "personal": f"guess-{i}"}).status_code
               for i in range(8)]
    assert answers[:5] == [403] * 5 and set(answers[5:]) == {429}, answers


def test_a_class_behind_one_address_is_never_slowed(fresh_server):
    """Only wrong codes spend: thirty learners signing in at once from one address all get in."""
    answers = [join(browser(fresh_server), f"Learner {i}").status_code for i in range(30)]
    assert answers == [200] * 30, answers


def test_a_trusted_proxy_names_the_client(tmp_path):
    srv = _start(tmp_path, JUDGE_FORWARDED_ALLOW_IPS="127.0.0.1", JUDGE_LEARN_GUESS_LIMITS=SLOW_REFILL)
    try:
        first = [join(browser(srv, **{"X-Forwarded-For": "198.51.100.7"}), "G", code="x").status_code
                 for _ in range(6)]
        assert first == [403] * 5 + [429], first
        other = join(browser(srv, **{"X-Forwarded-For": "198.51.100.8"}), "G", code="x")
        assert other.status_code == 403, "another client behind the same proxy is not limited with the first"
        assert "from 198.51.100.7" in srv.output()
    finally:
        srv.stop()


# -- the learner's language ---------------------------------------------------------------------------------


def test_the_page_api_speaks_the_learners_language_and_odd_asks_get_english(learn_server):
    """Accept-Language and the page's menu (``?lang=``) choose the verdict's language; a choice the judge lacks (a
    tag it has no catalog for, junk, a path) gives way to the browser's wish, and that to English: never an
    error."""
    with browser(learn_server, **{"Accept-Language": "fr-CH, fr;q=0.9, en;q=0.5"}) as client:
        csrf = open_page(client, join(client, "Lea"))
        sid = submit(client, csrf)

        def verdict(**kw):
            answer = client.get(f"/lti/api/submissions/{sid}", headers={"X-CSRF-Token": csrf, **kw.pop("h", {})},
                                params=kw)
            assert answer.status_code == 200, answer.text
            return answer.json()["verdict"]

        first = wait_for(verdict, 120, 0.2, "the verdict")
        assert first["message"].startswith("erreur de syntaxe"), first["message"]
        assert verdict(lang="ru")["message"].startswith("синтаксическая ошибка")
        for odd in ("de", "../../etc/passwd", "x" * 5000, "fr;q=abc,,,", "\u00e9\u00e9"):
            header = odd.encode("ascii", "replace").decode("ascii")  # what a header can carry
            assert verdict(h={"Accept-Language": header})["message"].startswith("syntax error"), odd
            if len(odd) > 40:  # the menu's value is a tag: a longer one is refused, saying what and where
                refused = client.get(f"/lti/api/submissions/{sid}", headers={"X-CSRF-Token": csrf},
                                     params={"lang": odd})
                assert refused.status_code == 422 and "query.lang" in refused.text
                continue
            assert verdict(lang=odd)["message"].startswith("erreur de syntaxe"), odd  # the browser's wish stands


def test_the_teachers_code_opens_the_class_in_the_browsers_language_or_the_menus(learn_server):
    """The class view a course's teacher code opens follows Accept-Language (the session has no launch locale),
    or the sign-in form's ?lang= carried on; its API answers in that language too."""
    from tests.support.i18n import english_sentences, page_lang, script_texts, visible_text

    teacher = {"course": "ml101", "code": TEACHER_CODE, "name": "Prof"}
    with browser(learn_server, **{"Accept-Language": "ru-RU,ru;q=0.9,en;q=0.5"}) as client:
        answer = client.post(f"/learn/{PROBLEM}", data=teacher)
        assert answer.status_code == 303 and answer.headers["location"].startswith("/lti/teacher/"), answer.text
        page = client.get(answer.headers["location"])
        assert page.status_code == 200 and page_lang(page.text) == "ru" and "Ученики" in page.text
        shown = [visible_text(page.text), *[t.replace("Names and Role", "NRPS") for t in script_texts(page.text)]]
        assert [s for text in shown for s in english_sentences(text)] == []
        csrf = re.search(r'<meta name="csrf-token" content="([^"]+)">', page.text).group(1)
        assert client.get("/lti/api/class", headers={"X-CSRF-Token": csrf}).status_code == 200
        menu = client.post(f"/learn/{PROBLEM}?lang=fr", data=teacher)  # the form's menu outranks the browser
        assert menu.status_code == 303 and menu.headers["location"].endswith("?lang=fr")
        assert page_lang(client.get(menu.headers["location"]).text) == "fr"
        odd = client.post(f"/learn/{PROBLEM}?lang=<script>", data=teacher)
        assert odd.status_code == 303 and "?" not in odd.headers["location"], "only en, fr or ru is carried on"
