"""The teacher's side of LTI 1.3 against the test LMS (tests/support/lti_platform.py), over real HTTP with a real
`judge serve` and the real sandbox: adding the exercise by Deep Linking 2.0, the class view (roster from the
platform's NRPS, the class's mistakes, CSV), and who may see it."""

from __future__ import annotations

import csv
import io
import re
import time

import httpx
import pytest

from tests.support.i18n import page_lang
from tests.support.lti_client import (
    INSTRUCTOR,
    LEARNER,
    _member,
    _source,
    _teacher,
    launch,
    start_launch,
    submit_and_wait,
)
from tests.support.lti_platform import CLIENT_ID, LoopbackPlatform, form_fields
from tests.support.service import Server

TA = ["http://purl.imsglobal.org/vocab/lis/v2/membership/Instructor#TeachingAssistant"]


MEMBERS = {"course-1": [_member("t-1", "Grace Teacher", INSTRUCTOR), _member("s-ada", "Ada"), _member("s-bob", "Bob"),
                        _member("s-cy", "Cy"), _member("s-dee", "Dee (never came)")],
           "course-2": [_member("t-2", "Other Teacher", INSTRUCTOR), _member("s-eve", "Eve")]}
TOOL_ON_A_COPY = True  # the last test changes the bundle on disk


# -- Deep Linking 2.0 ------------------------------------------------------------------------------------------
def test_a_teacher_adds_the_exercise_by_deep_linking(platform: LoopbackPlatform, server: Server):
    browser, action, fields = start_launch(platform, server, "t-1", message_type="LtiDeepLinkingRequest",
                                           roles=INSTRUCTOR, problem=None, data="dl-data-7")
    picker = browser.post(action, data=fields)
    assert picker.status_code == 200, picker.text
    assert "<script" not in picker.text  # a plain form: works without JavaScript
    for pid, title in (("sinusoidal-pe", "Sinusoidal positional encoding"), ("rotary-embedding", "")):
        assert f'name="problem" value="{pid}"' in picker.text and title in picker.text
    assert re.search(r"4 public cases, 18 hidden", picker.text), picker.text[:3000]
    form_action = re.search(r'<form method="post" action="([^"]+)"', picker.text).group(1)
    csrf = re.search(r'name="csrf" value="([^"]+)"', picker.text).group(1)
    forged = browser.post(form_action, data={"problem": "rotary-embedding", "csrf": "not-the-token"})
    assert forged.status_code == 403
    answer = browser.post(form_action, data={"problem": "rotary-embedding", "csrf": csrf})
    assert answer.status_code == 200, answer.text
    back, returned = form_fields(answer.text)  # the spec's auto-posting form, JWT in the field "JWT"
    assert back == f"{platform.url}/deep_link_return" and set(returned) == {"JWT"}
    posted = httpx.post(back, data=returned, timeout=30)  # what the browser's auto-post does
    assert posted.status_code == 200, posted.text
    message = platform.deep_links[-1]
    assert message["iss"] == CLIENT_ID and platform.issuer in message["aud"]
    assert message["https://purl.imsglobal.org/spec/lti/claim/message_type"] == "LtiDeepLinkingResponse"
    assert message["https://purl.imsglobal.org/spec/lti/claim/deployment_id"] == "deployment-1"
    assert message["https://purl.imsglobal.org/spec/lti-dl/claim/data"] == "dl-data-7"
    assert message["nonce"]
    [item] = message["https://purl.imsglobal.org/spec/lti-dl/claim/content_items"]
    assert item["type"] == "ltiResourceLink" and item["custom"] == {"problem": "rotary-embedding"}
    assert item["lineItem"]["scoreMaximum"] == 1.0 and item["url"] == f"{server.url}/lti/launch"
    again = browser.post(form_action, data={"problem": "sinusoidal-pe", "csrf": csrf})
    assert again.status_code == 403, "a picker answers once"


def test_a_learners_deep_linking_launch_is_refused(platform: LoopbackPlatform, server: Server):
    browser, action, fields = start_launch(platform, server, "s-ada", message_type="LtiDeepLinkingRequest",
                                           roles=LEARNER, problem=None)
    refused = browser.post(action, data=fields)
    assert refused.status_code == 403 and "teachers" in refused.text and "Traceback" not in refused.text


def test_the_picker_speaks_the_teachers_language(platform: LoopbackPlatform, server: Server):
    """A deep-linking launch with locale ru-RU: the picker (titles and statements' first lines from the bundles'
    translations), the answer that posts the exercise back, and a refusal of the picked form, in Russian."""
    from tests.support.i18n import english_sentences, visible_text

    browser, action, fields = start_launch(platform, server, "t-1", message_type="LtiDeepLinkingRequest",
                                           roles=INSTRUCTOR, problem=None, presentation={"locale": "ru-RU"})
    picker = browser.post(action, data=fields, headers={"Accept-Language": "en"})
    assert picker.status_code == 200 and page_lang(picker.text) == "ru" and "Добавить эту задачу" in picker.text
    assert "Синусоидальное позиционное кодирование" in picker.text and "4 открытых теста, скрытых: 18" in picker.text
    assert english_sentences(visible_text(picker.text)) == [], english_sentences(visible_text(picker.text))
    form_action = re.search(r'<form method="post" action="([^"]+)"', picker.text).group(1)
    csrf = re.search(r'name="csrf" value="([^"]+)"', picker.text).group(1)
    unknown = browser.post(form_action, data={"problem": "../../x", "csrf": csrf})
    assert unknown.status_code == 400 and page_lang(unknown.text) == "ru" and "&#x27;../../x&#x27;" in unknown.text
    answer = browser.post(form_action, data={"problem": "rotary-embedding", "csrf": csrf})
    assert answer.status_code == 200 and page_lang(answer.text) == "ru" and "Добавление задачи" in answer.text
    again = browser.post(form_action, data={"problem": "rotary-embedding", "csrf": csrf},
                         headers={"Accept-Language": "fr"})
    assert again.status_code == 403 and "Sélecteur expiré" in again.text, "a spent picker: the browser's language"


# -- the class view --------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def class_submitted(platform: LoopbackPlatform, server: Server) -> dict:
    """Ada: accepted after a swapped try; Bob: swapped twice; Cy: base ignored; Dee never came; Eve, in another
    course, swapped too."""
    plan = {"s-ada": ["wrong_answer/sin_cos_swapped.py", "accepted/vectorised.py"],
            "s-bob": ["wrong_answer/sin_cos_swapped.py", "wrong_answer/sin_cos_swapped.py"],
            "s-cy": ["wrong_answer/base_ignored.py"]}
    for user, files in plan.items():
        browser, csrf = launch(platform, server, user)
        for rel in files:
            submit_and_wait(browser, csrf, _source(rel))
    browser, csrf = launch(platform, server, "s-eve", course="course-2")
    submit_and_wait(browser, csrf, _source("wrong_answer/sin_cos_swapped.py"))
    return plan


def test_the_teacher_sees_the_roster_the_scores_and_the_class_mistakes(platform, server, class_submitted):
    browser, csrf = _teacher(platform, server)
    body = browser.get("/lti/api/class", headers={"X-CSRF-Token": csrf}).json()
    rows = {r["user_id"]: r for r in body["learners"]}
    assert set(rows) == {"s-ada", "s-bob", "s-cy", "s-dee"}, "the roster's learners, staff left out, Eve elsewhere"
    assert rows["s-ada"]["attempts"] == 2 and rows["s-ada"]["best_score"] == 1.0
    assert rows["s-ada"]["last_status"] == "accepted" and rows["s-ada"]["first_accepted_at"]
    assert rows["s-bob"]["attempts"] == 2 and rows["s-bob"]["last_status"] == "wrong_answer"
    assert rows["s-bob"]["first_accepted_at"] is None and "sin_cos_swapped" in rows["s-bob"]["mistakes"]
    assert rows["s-dee"]["attempts"] == 0 and rows["s-dee"]["last_status"] is None
    assert body["enrolled"] == 4 and body["submitted"] == 3
    mistakes = [m for m in body["mistakes"] if m["kind"] == "mistake"]
    assert mistakes[0]["id"] == "sin_cos_swapped" and mistakes[0]["learners"] == 2 and mistakes[0]["submissions"] == 3
    assert any(m["id"] == "base_ignored" and m["learners"] == 1 for m in mistakes)
    # one learner's submissions, with everything staff may see: hidden cases included
    subs = browser.get("/lti/api/class/learners/s-bob", headers={"X-CSRF-Token": csrf}).json()["submissions"]
    assert len(subs) == 2 and all(s["verdict"]["status"] == "wrong_answer" for s in subs)
    assert any(c["visibility"] == "hidden" for c in subs[0]["verdict"]["cases"])
    assert browser.get("/lti/api/class/learners/s-eve", headers={"X-CSRF-Token": csrf}).status_code == 404


def test_the_class_as_csv(platform, server, class_submitted):
    browser, csrf = _teacher(platform, server, roles=TA)  # a teaching assistant is staff too
    answer = browser.get("/lti/api/class.csv", headers={"X-CSRF-Token": csrf})
    assert answer.status_code == 200 and answer.headers["content-type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(answer.text)))
    assert [r["user_id"] for r in rows] == ["s-ada", "s-bob", "s-cy", "s-dee"]
    assert rows[0]["best_score"] == "1.0" and rows[3]["attempts"] == "0" and rows[3]["best_score"] == ""


def test_a_learner_gets_403_and_a_teacher_sees_only_their_course(platform, server, class_submitted):
    learner, csrf = launch(platform, server, "s-ada")
    for path in ("/lti/api/class", "/lti/api/class.csv", "/lti/api/class/learners/s-bob"):
        assert learner.get(path, headers={"X-CSRF-Token": csrf}).status_code == 403, path
    other, other_csrf = _teacher(platform, server, user="t-2", course="course-2")
    body = other.get("/lti/api/class", headers={"X-CSRF-Token": other_csrf}).json()
    assert [r["user_id"] for r in body["learners"]] == ["s-eve"] and body["learners"][0]["attempts"] == 1
    assert other.get("/lti/api/class/learners/s-ada", headers={"X-CSRF-Token": other_csrf}).status_code == 404
    no_token = other.get("/lti/api/class")
    assert no_token.status_code == 403


def test_a_teachers_rejudge_covers_their_course_only_and_shows_the_matrix(platform, server, class_submitted):
    browser, csrf = _teacher(platform, server)
    created = browser.post("/lti/api/class/rejudges", headers={"X-CSRF-Token": csrf})
    assert created.status_code == 202, created.text
    rid = created.json()["id"]
    total = sum(len(files) for files in class_submitted.values())  # Eve's submission, in course-2, is not in it
    view = None
    for _ in range(600):
        view = browser.get(f"/lti/api/class/rejudges/{rid}", headers={"X-CSRF-Token": csrf}).json()
        if view["state"] not in ("queued", "running"):
            break
        time.sleep(0.2)
    assert view["state"] == "done" and view["total"] == view["graded"] == total, view
    # the bundle did not change: every verdict stays as it was, on the diagonal of the matrix
    assert all(set(row) == {old} for old, row in view["matrix"].items()) and view["changed"] == []
    other, other_csrf = _teacher(platform, server, user="t-2", course="course-2")
    assert other.get(f"/lti/api/class/rejudges/{rid}", headers={"X-CSRF-Token": other_csrf}).status_code == 404
    learner, learner_csrf = launch(platform, server, "s-ada")
    assert learner.post("/lti/api/class/rejudges", headers={"X-CSRF-Token": learner_csrf}).status_code == 403
    applied = browser.post(f"/lti/api/class/rejudges/{rid}/apply", headers={"X-CSRF-Token": csrf})
    assert applied.status_code == 200 and applied.json()["state"] == "applied", applied.text


# -- the teacher's language ------------------------------------------------------------------------------------
def _teacher_url(browser: httpx.Client) -> str:
    [handle] = [name.removeprefix("judge-lti-") for name in browser.cookies if name.startswith("judge-lti-")]
    return f"/lti/teacher/{handle}"


def _english(texts: list[str]) -> list[str]:
    """The English sentences left in ``texts`` (the LTI service's name, Names and Role Provisioning, is a name)."""
    from tests.support.i18n import english_sentences

    return [found for text in texts for found in english_sentences(text.replace("Names and Role", "NRPS"))]


@pytest.mark.parametrize("locale, lang, heading", [("fr-FR", "fr", "Les erreurs de la classe"),
                                                   ("ru-RU", "ru", "В чём ошибается класс")])
def test_the_class_view_follows_the_teachers_launch_locale(platform, server, class_submitted, locale, lang, heading):
    """An instructor's launch with locale fr-FR (ru-RU): the page's words, its script's words, the class's mistakes
    and a learner's verdicts in that language, with no English sentence, whatever the browser asks; the JSON's and
    the CSV's field names, ids and status codes stay as they are (data); the menu goes back to English."""
    from tests.support.i18n import script_texts, visible_text

    browser, csrf = _teacher(platform, server, presentation={"locale": locale, "document_target": "iframe"})
    english = {"Accept-Language": "en-US,en;q=0.9"}
    page = browser.get(_teacher_url(browser), headers=english)
    assert page.status_code == 200 and page_lang(page.text) == lang and heading in page.text
    assert 'href="?lang=en"' in page.text, "the language menu"
    assert _english([visible_text(page.text)]) == [] and _english(script_texts(page.text)) == []
    body = browser.get("/lti/api/class", headers={"X-CSRF-Token": csrf, **english}).json()
    assert set(body) == {"problem", "course", "learners", "mistakes", "submitted", "enrolled"}
    rows = {r["user_id"]: r for r in body["learners"]}
    assert rows["s-bob"]["last_status"] == "wrong_answer" and "sin_cos_swapped" in rows["s-bob"]["mistakes"]
    ours = {(m["kind"], m["id"]): m["message"] for m in body["mistakes"]}
    theirs = {(m["kind"], m["id"]): m["message"] for m in browser.get(
        "/lti/api/class", params={"lang": "en"}, headers={"X-CSRF-Token": csrf}).json()["mistakes"]}
    assert set(ours) == set(theirs) and ("mistake", "sin_cos_swapped") in ours, "the same ids in every language"
    assert all(ours[k] != theirs[k] for k in ours) and _english(list(ours.values())) == [], ours
    [latest, _] = browser.get("/lti/api/class/learners/s-bob", headers={"X-CSRF-Token": csrf, **english}
                              ).json()["submissions"]
    verdict = latest["verdict"]
    said = [verdict["message"]] + [d["message"] for d in verdict["diagnoses"]] + [c["message"] for c in
                                                                                  verdict["cases"]]
    assert verdict["status"] == "wrong_answer" and _english(said) == [], said
    table = browser.get("/lti/api/class.csv", headers={"X-CSRF-Token": csrf}).text
    assert table.splitlines()[0] == "user_id,name,attempts,best_score,last_status,first_accepted_at,mistakes," \
                                    "probe_limited" and ",wrong_answer," in table
    back = browser.get(_teacher_url(browser), params={"lang": "en"})
    assert page_lang(back.text) == "en" and "What the class gets wrong" in back.text


def test_a_learner_cannot_reach_the_class_view_in_any_language(platform, server, class_submitted):
    """A learner's session at the teacher's page: refused in the session's language (or the menu's), with no
    learner's name or result, whatever language or junk it asks for; the class's API refuses it too."""
    learner, csrf = launch(platform, server, "s-ada", presentation={"locale": "fr-FR"})
    url = _teacher_url(learner)  # the learner page's session, at the teacher's address
    refused = learner.get(url)
    assert refused.status_code == 403 and page_lang(refused.text) == "fr"
    assert "Réservé aux enseignant·es" in refused.text and _english([refused.text]) == []
    for lang, title in (("ru", "Только для преподавателей"), ("en", "Not a teacher"), ("../../x", "Réservé"),
                        ("<script>alert(1)</script>", "Réservé")):
        page = learner.get(url, params={"lang": lang})
        assert page.status_code == 403 and title in page.text and "<script" not in page.text, lang
        api = learner.get("/lti/api/class", params={"lang": lang}, headers={"X-CSRF-Token": csrf})
        csv_api = learner.get("/lti/api/class.csv", params={"lang": lang}, headers={"X-CSRF-Token": csrf})
        assert api.status_code == csv_api.status_code == 403, lang
        for answer in (page, api, csv_api):
            assert "Bob" not in answer.text and "s-bob" not in answer.text and "Cy" not in answer.text


def test_an_odd_language_never_reaches_the_teachers_page(platform, server, class_submitted):
    """The language is only ever en, fr or ru: an odd launch locale is dropped at launch, and an odd ?lang= or
    Accept-Language (a path, a script tag, a very long value) gives English; none of it reaches the page."""
    browser, csrf = _teacher(platform, server, presentation={"locale": "<script>alert(1)</script>"})
    url = _teacher_url(browser)
    asks = [({"lang": "../../x"}, {}), ({"lang": "<script>alert(1)</script>"}, {}), ({"lang": "fr" * 5000}, {}),
            ({"lang": "fr\u0000"}, {}), ({}, {"Accept-Language": "q" * 9000}),
            ({}, {"Accept-Language": "<script>alert(1)</script>"}), ({}, {"Accept-Language": "fr;q=abc,,,"}),
            ({}, {"Accept-Language": "../../../etc/passwd"})]
    for params, headers in asks:
        page = browser.get(url, params=params, headers=headers)
        assert page.status_code == 200 and page_lang(page.text) == "en", (params, headers)
        assert "<script>alert" not in page.text and "passwd" not in page.text and "../" not in page.text
        assert "qqqq" not in page.text and "frfrfr" not in page.text
    api = browser.get("/lti/api/class", params={"lang": "<script>alert(1)</script>"}, headers={"X-CSRF-Token": csrf})
    assert api.status_code == 200 and "<script>alert" not in api.text
    assert browser.get("/lti/api/class", params={"lang": "x" * 5000}, headers={"X-CSRF-Token": csrf}
                       ).status_code == 422, "a longer ?lang= than a tag is refused, saying where"


def test_applying_a_rejudge_updates_the_learners_page_and_the_gradebook(platform, server, class_submitted):
    """Last in this file: it changes the bundle on disk (float32 tables allowed within 1e-3)."""
    from tests.support.problems import _loosen
    from tests.support.service import wait_for

    learner, learner_csrf = launch(platform, server, "s-cy")
    done = submit_and_wait(learner, learner_csrf, _source("wrong_answer/float32_table.py"))
    assert done["verdict"]["status"] == "wrong_answer"
    wait_for(lambda: [s for s in platform.scores if s["score"]["userId"] == "s-cy"
                      and s["score"]["gradingProgress"] == "FullyGraded" and s["score"]["scoreGiven"] < 1.0
                      and "wrong answer" in s["score"].get("comment", "")], 30, what="the wrong answer's score")
    _loosen(server.problems)
    browser, csrf = _teacher(platform, server)
    rid = browser.post("/lti/api/class/rejudges", headers={"X-CSRF-Token": csrf}).json()["id"]
    view = wait_for(lambda: (lambda v: v if v["state"] == "done" else None)(
        browser.get(f"/lti/api/class/rejudges/{rid}", headers={"X-CSRF-Token": csrf}).json()), 300, interval=0.3,
        what="the course's rejudge")
    assert {"submission": done["id"], "old": "wrong_answer", "new": "accepted"}.items() <= \
        next(c for c in view["changed"] if c["submission"] == done["id"]).items()
    seen = learner.get(f"/lti/api/submissions/{done['id']}", headers={"X-CSRF-Token": learner_csrf}).json()
    assert seen["verdict"]["status"] == "wrong_answer", "a dry run changes nothing the learner sees"
    assert browser.post(f"/lti/api/class/rejudges/{rid}/apply", headers={"X-CSRF-Token": csrf}).status_code == 200
    seen = learner.get(f"/lti/api/submissions/{done['id']}", headers={"X-CSRF-Token": learner_csrf}).json()
    assert seen["verdict"]["status"] == "accepted"
    wait_for(lambda: [s for s in platform.scores if s["score"]["userId"] == "s-cy"
                      and s["score"]["gradingProgress"] == "FullyGraded" and s["score"]["scoreGiven"] == 1.0],
             30, what="the new score in the gradebook")
