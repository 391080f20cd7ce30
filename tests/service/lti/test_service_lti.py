"""LTI 1.3 end to end against a test platform on loopback (tests/support/lti_platform.py), over real HTTP with a
real `judge serve` and the real sandbox: launch -> page -> submit -> verdict -> score in the gradebook,
each launch check failing on its own, and the page API's safety rules."""

from __future__ import annotations

import json
import re

import httpx
import pytest

from judge.service.lti.config import load_tool_config
from judge.service.settings import SettingsError
from tests.support.lti_client import launch, start_launch, submit_and_wait
from tests.support.lti_platform import CLIENT_ID, LoopbackPlatform, new_key
from tests.support.service import SOURCES, wait_for

API_TOKEN = "platform-api-token-0123456789"


TOOL_ENV = {"JUDGE_API_TOKENS": f"alpha:{API_TOKEN}", "JUDGE_LEARN_CODES": "ml101:open-sesame",
            "JUDGE_LEARNER_RATE_LIMIT": "0.01:4"}


def scores_for(platform: LoopbackPlatform, user: str) -> list[dict]:
    return [s["score"] for s in platform.scores if s["score"]["userId"] == user]


# -- the whole flow ----------------------------------------------------------------------------------
def test_launch_page_submit_verdict_and_score_posted(platform, server):
    browser, csrf = launch(platform, server, "learner-1")
    page = browser.page
    assert "Sinusoidal positional encoding" in page and 'id="editor"' in page
    head = page.split("<main")[0]
    assert "/lti/static/learner.js" in head and "http" not in head, "every script and style comes from the judge"

    wrong = submit_and_wait(browser, csrf, SOURCES["wrong_answer"])
    assert wrong["verdict"]["status"] == "wrong_answer"
    assert wrong["verdict"]["diagnoses"], "a known mistake is named"
    pictures = wait_for(lambda: browser.get(f"/lti/api/submissions/{wrong['id']}",
                                            headers={"X-CSRF-Token": csrf}).json()["verdict"]["pictures"],
                        120, interval=0.5, what="the pictures, drawn after the verdict")
    assert all(p["url"].startswith("data:image/png;base64,") and p["case"].startswith("ex-") for p in pictures), \
        "pictures of failing public cases, inline"
    right = submit_and_wait(browser, csrf, SOURCES["accepted"])
    assert right["verdict"]["status"] == "accepted" and right["verdict"]["score"] == 1.0

    history = browser.get("/lti/api/submissions", headers={"X-CSRF-Token": csrf}).json()["submissions"]
    assert [s["id"] for s in history] == [right["id"], wrong["id"]], "newest first"

    def posted() -> list[dict] | None:
        got = scores_for(platform, "learner-1")
        return got if sum(s["gradingProgress"] == "FullyGraded" for s in got) >= 2 else None

    got = wait_for(posted, 30, what="both final scores at the platform")
    pending = [s for s in got if s["gradingProgress"] == "Pending"]
    final = [s for s in got if s["gradingProgress"] == "FullyGraded"]
    assert len(pending) == 2 and all(s["activityProgress"] == "Submitted" for s in pending)
    latest = max(final, key=lambda s: s["timestamp"])
    assert latest["scoreGiven"] == 1.0 and latest["scoreMaximum"] == 1.0 and latest["comment"].startswith("accepted")
    earlier = min(final, key=lambda s: s["timestamp"])
    assert earlier["scoreGiven"] == pytest.approx(wrong["verdict"]["score"]) and "wrong answer" in earlier["comment"]
    assert all(r["grant_type"] == "client_credentials" for r in platform.token_requests)
    assert "score" in platform.token_requests[0]["scope"]


def test_a_gradebook_that_is_down_gets_the_score_later(platform, server):
    browser, csrf = launch(platform, server, "patient")
    platform.fail_scores = 3
    verdict = submit_and_wait(browser, csrf, SOURCES["compile_error"])
    assert verdict["verdict"]["status"] == "compile_error", "the learner's verdict does not wait for the gradebook"
    final = wait_for(lambda: [s for s in scores_for(platform, "patient") if s["gradingProgress"] == "FullyGraded"],
                     30, what="the retried score")
    assert final[0]["scoreGiven"] == 0.0 and platform.refused_scores == 3


def test_jwks_serves_the_tool_key(server, platform):
    keys = httpx.get(server.url + "/lti/jwks").json()["keys"]
    assert len(keys) == 1 and keys[0]["kty"] == "RSA" and keys[0]["alg"] == "RS256" and "d" not in keys[0]


# -- each launch check failing on its own ---------------------------------------------------------------
@pytest.mark.parametrize("overrides, why", [
    ({"sign_with": "other key"}, "signature"),
    ({"aud": "some-other-tool"}, "client id"),
    ({"exp_in": -120}, "expired"),
    ({"deployment_id": "deployment-unknown"}, "deployment"),
    ({"iss": "https://unknown-lms.example"}, "issuer"),
], ids=["bad-signature", "wrong-audience", "expired", "unknown-deployment", "unknown-issuer"])
def test_a_launch_failing_one_check_gets_a_plain_error_page(platform, server, overrides, why):
    if overrides.get("sign_with") == "other key":
        overrides = {"sign_with": new_key()}
    browser, action, fields = start_launch(platform, server, "learner-x", **overrides)
    answer = browser.post(action, data=fields)
    assert answer.status_code in (400, 403), answer.text
    assert answer.headers["content-type"].startswith("text/html")
    assert why in answer.text.lower() and "Traceback" not in answer.text
    assert not any(name.startswith("judge-lti-") for name in browser.cookies), "no session for a refused launch"
    assert "/lti/launch refused" in server.output()


def test_a_login_from_an_unregistered_platform_is_refused(server):
    answer = httpx.get(server.url + "/lti/login", params={"iss": "https://unknown-lms.example", "login_hint": "u",
                                                         "lti1p3_new_window": "1"})
    assert answer.status_code == 400 and "not registered" in answer.text and "Traceback" not in answer.text


def test_a_replayed_launch_is_refused(platform, server):
    browser, action, fields = start_launch(platform, server, "learner-r")
    assert browser.post(action, data=fields).status_code == 303
    again = browser.post(action, data=fields)  # same browser, same state cookie, same id_token
    assert again.status_code == 403 and "nonce" in again.text.lower()


def test_a_launch_without_the_state_cookie_says_cookies_are_blocked(platform, server):
    _browser, action, fields = start_launch(platform, server, "learner-c")
    other = httpx.post(action, data=fields, timeout=30)  # a browser that did not keep the cookie
    assert other.status_code == 403 and "third-party cookies" in other.text


def test_a_launch_naming_no_problem_says_how_to_set_one(platform, server):
    browser, action, fields = start_launch(platform, server, "learner-p", problem=None)
    answer = browser.post(action, data=fields)
    assert answer.status_code == 400 and "problem=&lt;id&gt;" in answer.text and "sinusoidal-pe" in answer.text


# -- safety of the page API ---------------------------------------------------------------------------------
def test_learners_see_only_their_own_and_sessions_are_separate_from_api_tokens(platform, server):
    alice, alice_csrf = launch(platform, server, "alice")
    bob, bob_csrf = launch(platform, server, "bob")
    created = alice.post("/lti/api/submissions", json={"source": SOURCES["compile_error"]},
                         headers={"X-CSRF-Token": alice_csrf}).json()
    path = f"/lti/api/submissions/{created['id']}"
    assert bob.get(path, headers={"X-CSRF-Token": bob_csrf}).status_code == 404
    assert alice.get(path).status_code == 403  # no CSRF token
    assert alice.get(path, headers={"X-CSRF-Token": bob_csrf}).status_code in (401, 403)  # no cookie for that session
    assert httpx.get(server.url + path, headers={"X-CSRF-Token": alice_csrf}).json()["code"] == "cookie_missing"
    assert httpx.get(server.url + path, headers={"Authorization": f"Bearer {API_TOKEN}"}).status_code == 403
    with httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {API_TOKEN}"}) as api:
        assert api.get(f"/v1/submissions/{created['id']}").status_code == 404, "a platform cannot read LTI work"
    assert alice.get(f"/v1/submissions/{created['id']}").status_code == 401, "a launch session is no API token"


def test_hidden_cases_print_nothing_to_the_learner(platform, server):
    browser, csrf = launch(platform, server, "printer")
    source = SOURCES["accepted"].replace("def sinusoidal_pe(max_len, d_model, base=10000.0):",
                                         "def sinusoidal_pe(max_len, d_model, base=10000.0):\n"
                                         "    print('ARGS', max_len, d_model, base)")
    assert "print('ARGS'" in source
    verdict = submit_and_wait(browser, csrf, source)["verdict"]
    printed = verdict["stdout"]["text"]
    public = {c["id"] for c in verdict["cases"] if c["visibility"] == "public"}
    assert public and "ARGS 3 4 10000.0" in printed  # a public example's arguments
    assert "ARGS 50 33" not in printed and "ARGS 8192 1024" not in printed, printed
    hidden = [c for c in verdict["cases"] if c["visibility"] == "hidden"]
    assert hidden and all(c["output"] is None and c["facts"] is None and c.get("expected_shape") is None
                          and c.get("got_shape") is None for c in hidden)


def test_submissions_are_rate_limited_per_learner(platform, server):
    spammer, csrf = launch(platform, server, "spammer")
    answers = [spammer.post("/lti/api/submissions", json={"source": SOURCES["compile_error"]},
                            headers={"X-CSRF-Token": csrf}).status_code for _ in range(6)]
    assert answers[:4] == [202] * 4 and 429 in answers[4:]
    calm, calm_csrf = launch(platform, server, "calm")
    assert calm.post("/lti/api/submissions", json={"source": SOURCES["compile_error"]},
                     headers={"X-CSRF-Token": calm_csrf}).status_code == 202, "another learner is not slowed"


def test_access_code_page(server):
    with httpx.Client(base_url=server.url, timeout=30) as browser:
        assert browser.get("/learn/sinusoidal-pe").status_code == 200
        wrong = browser.post("/learn/sinusoidal-pe", data={"course": "ml101", "code": "guess", "name": "Ann"})
        assert wrong.status_code == 403 and "wrong access code" in wrong.text
        right = browser.post("/learn/sinusoidal-pe", data={"course": "ml101", "code": "open-sesame", "name": "Ann"})
        assert right.status_code == 200 and re.search(r'id="personal-code">[0-9A-Z-]{24}<', right.text), right.text
        page = browser.get(re.search(r'href="(/lti/page/[^"]+)"', right.text).group(1))
        assert page.status_code == 200 and "Signed in as Ann" in page.text


# -- configuration checked at start-up ----------------------------------------------------------------------
@pytest.mark.parametrize("change, message", [
    (lambda c: c.pop("deployment_ids"), "deployment_ids"),
    (lambda c: c.update(auth_login_url="ftp://x"), "auth_login_url"),
    (lambda c: c.update(private_key_file="missing.pem"), "cannot read"),
    (lambda c: c.update(public_key_file="other-public.pem"), "not the public half"),
])
def test_platform_file_mistakes_are_named(tmp_path, change, message):
    lms = LoopbackPlatform(tmp_path)
    try:
        from tests.support.lti_platform import pem

        (tmp_path / "other-public.pem").write_bytes(pem(new_key())[1])
        config = json.loads(lms.config_path.read_text())
        entry = config[lms.issuer][0]
        assert entry["client_id"] == CLIENT_ID
        change(entry)
        lms.config_path.write_text(json.dumps(config))
        with pytest.raises(SettingsError, match=message):
            load_tool_config(str(lms.config_path))
    finally:
        lms.stop()


def test_the_learner_view_withholds_what_hidden_cases_could_reveal():
    from judge.service.lti.learner_view import learner_verdict

    out = {"stderr": "", "truncated": False}
    verdict = {"status": "runtime_error", "score": 0.5, "message": "first failing case hid (hidden): ValueError: 50 33",
               "problem": "p", "judge_version": "0", "numpy_version": "0", "python_version": "3.11",
               "load_output": {"stdout": "L\n", **out},
               "stdout": {"text": "L\nP\nARGS 50 33\n", "bytes": 16}, "stderr": {"text": "", "bytes": 0},
               "cases": [
                   {"id": "pub", "function": "f", "visibility": "public", "status": "accepted",
                    "output": {"stdout": "P\n", **out}},
                   {"id": "hid", "function": "f", "visibility": "hidden", "status": "runtime_error",
                    "message": "ValueError: got 50 33", "expected_shape": [50, 33], "got_shape": [50, 33],
                    "output": {"stdout": "ARGS 50 33\n", **out}, "facts": None}]}
    view = learner_verdict(verdict)
    assert "50" not in json.dumps(view), view
    assert view["stdout"]["text"] == "L\nP\n"
    assert view["cases"][1]["message"] == "raised ValueError"
    assert view["message"] == "first failing case hidden case 1 of 1: raised ValueError"


# -- the learner's language ------------------------------------------------------------------------------
def _page_url(browser: httpx.Client) -> str:
    [handle] = [name.removeprefix("judge-lti-") for name in browser.cookies if name.startswith("judge-lti-")]
    return f"/lti/page/{handle}"


def _page_lang(html: str) -> str:
    return re.search(r'<html lang="(\w+)">', html).group(1)


def test_the_launch_locale_is_kept_with_the_session(platform, server):
    """A launch with locale fr-FR: the page, a reload of it and the verdicts (answer, history) are French
    without the page asking (no ?lang=, a browser saying English); the menu's ?lang= still decides."""
    from tests.support.i18n import english_sentences

    browser, csrf = launch(platform, server, "learner-fr", presentation={"locale": "fr-FR", "document_target":
                                                                        "iframe"})
    assert _page_lang(browser.page) == "fr" and "Énoncé" in browser.page and "Soumettre" in browser.page
    assert "Encodage positionnel" in browser.page and "Un transformer voit" in browser.page, "French statement"
    english = {"Accept-Language": "en-US,en;q=0.9", "X-CSRF-Token": csrf}
    reload = browser.get(_page_url(browser), headers=english)
    assert _page_lang(reload.text) == "fr", "the launch's locale outranks the browser's language"
    wrong = submit_and_wait(browser, csrf, SOURCES["wrong_answer"])
    said = [wrong["verdict"]["message"]] + [d["message"] for d in wrong["verdict"]["diagnoses"]]
    assert wrong["verdict"]["status"] == "wrong_answer" and not english_sentences("\n".join(said)), said
    [earlier] = browser.get("/lti/api/submissions", headers=english).json()["submissions"]
    assert earlier["verdict"]["message"] == wrong["verdict"]["message"], "the history speaks the session's language"
    again = browser.get(f"/lti/api/submissions/{wrong['id']}", headers=english).json()
    assert again["verdict"]["message"] == wrong["verdict"]["message"]
    russian = browser.get(f"/lti/api/submissions/{wrong['id']}", params={"lang": "ru"}, headers=english).json()
    assert re.search("[а-я]", russian["verdict"]["message"]), "the menu's choice outranks the launch's"
    assert _page_lang(browser.get(_page_url(browser), params={"lang": "ru"}).text) == "ru"


@pytest.mark.parametrize("presentation", [
    {"locale": "xx-YY"}, {"locale": "../../../../etc/passwd"}, {"locale": "fr-" + "A" * 10_000},
    {"locale": ["fr"]}, {"locale": {"fr": 1}}, {"locale": None}, {"locale": 7}, "fr-FR", ["fr-FR"],
])
def test_an_odd_launch_locale_gives_english_never_an_error(platform, server, presentation):
    """Whatever the launch presentation claim holds, the launch opens the page; an unusable locale is dropped,
    so the browser's language decides (English without one)."""
    browser, _csrf = launch(platform, server, "learner-odd", presentation=presentation)
    assert _page_lang(browser.page) == "en" and "Submit" in browser.page
    asked = browser.get(_page_url(browser), headers={"Accept-Language": "ru-RU,ru;q=0.9"})
    assert asked.status_code == 200 and _page_lang(asked.text) == "ru"
    odd = browser.get(_page_url(browser), params={"lang": "fr" * 5000}, headers={"Accept-Language": "q" * 9000})
    assert odd.status_code == 200 and _page_lang(odd.text) == "en"


def test_the_access_code_pages_speak_the_browsers_language_or_the_menus(server):
    """/learn's sign-in form, its refusals and the personal code's page: Accept-Language, else the menu's ?lang=,
    which the form's answer keeps; the learner page it opens speaks it too."""
    with httpx.Client(base_url=server.url, timeout=30) as browser:
        russian = browser.get("/learn/sinusoidal-pe", headers={"Accept-Language": "ru-RU,ru;q=0.9,en;q=0.5"})
        assert _page_lang(russian.text) == "ru" and "Код доступа" in russian.text and 'href="?lang=fr"' in russian.text
        form = browser.get("/learn/sinusoidal-pe", params={"lang": "fr"}, headers={"Accept-Language": "ru"})
        assert _page_lang(form.text) == "fr" and 'action="/learn/sinusoidal-pe?lang=fr"' in form.text
        wrong = browser.post("/learn/sinusoidal-pe?lang=fr", data={"course": "ml101", "code": "guess", "name": "Zoé"})
        assert wrong.status_code == 403 and "code d&#x27;accès erroné" in wrong.text
        right = browser.post("/learn/sinusoidal-pe?lang=fr", data={"course": "ml101", "code": "open-sesame",
                                                                   "name": "Zoé"})
        assert right.status_code == 200 and "Votre code personnel est" in right.text
        page = browser.get(re.search(r'href="(/lti/page/[^"]+)"', right.text).group(1))
        assert _page_lang(page.text) == "fr" and "Connecté·e en tant que Zoé" in page.text
        odd = browser.get("/learn/sinusoidal-pe", params={"lang": "../" * 13}, headers={"Accept-Language": "x" * 9000})
        assert odd.status_code == 200 and _page_lang(odd.text) == "en"


# -- error pages in the reader's language ----------------------------------------------------------------------
@pytest.mark.parametrize("locale, lang, title", [("fr-FR", "fr", "Aucun exercice choisi"),
                                                 ("ru-RU", "ru", "Задача не выбрана")])
def test_a_refused_launch_speaks_the_launchs_language_and_names_the_detail_exactly(platform, server, locale, lang,
                                                                                    title):
    """A signed launch refused (its activity names an unknown problem): the page in the launch's locale, else
    the browser's; the sentence translated, the problem and the parameter named exactly.  A launch refused
    before its token is trusted speaks the browser's language, the library's reason kept as it said it."""
    from tests.support.i18n import english_sentences, visible_text

    browser, action, fields = start_launch(platform, server, "learner-x", problem="no-such-one",
                                           presentation={"locale": locale})
    answer = browser.post(action, data=fields, headers={"Accept-Language": "en"})
    assert answer.status_code == 400 and _page_lang(answer.text) == lang and f"<h1>{title}</h1>" in answer.text
    assert "&#x27;no-such-one&#x27;" in answer.text and "problem=&lt;id&gt;" in answer.text
    assert not english_sentences(visible_text(answer.text)), visible_text(answer.text)
    browser, action, fields = start_launch(platform, server, "learner-x", problem="no-such-one")
    answer = browser.post(action, data=fields, headers={"Accept-Language": f"de;q=1, {lang};q=0.5"})
    assert _page_lang(answer.text) == lang and f"<h1>{title}</h1>" in answer.text
    browser, action, fields = start_launch(platform, server, "learner-x", sign_with=new_key(),
                                           presentation={"locale": "en"})  # an unsigned claim decides nothing
    answer = browser.post(action, data=fields, headers={"Accept-Language": lang})
    assert answer.status_code == 403 and _page_lang(answer.text) == lang and "signature" in answer.text.lower()
    assert "Launch refused" not in answer.text and "Traceback" not in answer.text


@pytest.mark.parametrize("lang, title", [("fr", "Trop de connexions"), ("ru", "Слишком много входов")])
def test_too_many_sign_ins_is_said_in_the_readers_language(server, lang, title):
    """/learn's limit on sessions one learner opens: the refusal in the menu's language, else the browser's."""
    from tests.support.i18n import english_sentences, visible_text

    with httpx.Client(base_url=server.url, timeout=30) as browser:
        joined = browser.post("/learn/sinusoidal-pe", data={"course": "ml101", "code": "open-sesame",
                                                           "name": f"Many-{lang}"})
        assert joined.status_code == 200
        for _ in range(40):  # the learner's sessions: a burst of 20, then one per 5 s
            answer = browser.post(f"/learn/sinusoidal-pe?lang={lang}", data={"action": "continue"})
            if answer.status_code == 429:
                break
            assert answer.status_code == 303, answer.text
        assert answer.status_code == 429 and _page_lang(answer.text) == lang and f"<h1>{title}</h1>" in answer.text
        assert not english_sentences(visible_text(answer.text)), visible_text(answer.text)
        header = browser.post("/learn/sinusoidal-pe", data={"action": "continue"}, headers={"Accept-Language": lang})
        assert header.status_code == 429 and _page_lang(header.text) == lang
        plain = browser.post("/learn/sinusoidal-pe", data={"action": "continue"})
        assert _page_lang(plain.text) == "en" and "Too many sign-ins" in plain.text


def test_a_session_refusal_speaks_the_browsers_language_and_never_the_sessions(platform, server):
    """Unknown or expired session, a browser without the session's cookie: the browser's language, or the
    menu's; the session's own language is not told to a browser that cannot prove it holds the session, and no
    odd ?lang= or Accept-Language reaches the page."""
    browser, _csrf = launch(platform, server, "learner-fr2", presentation={"locale": "fr-FR"})
    url = _page_url(browser)
    with httpx.Client(base_url=server.url, timeout=30) as stranger:
        cookieless = stranger.get(url)
        assert cookieless.status_code == 401 and _page_lang(cookieless.text) == "en"
        assert "Cookies blocked" in cookieless.text
        assert _page_lang(stranger.get(url, headers={"Accept-Language": "ru"}).text) == "ru"
        check = stranger.get("/lti/login", params=platform.login_params("x"), headers={"Accept-Language": "ru"})
        assert _page_lang(check.text) == "ru" and "Открываем задачу" in check.text, "the cookie check on the way"
        gone = stranger.get("/lti/page/0123456789abcdef", params={"lang": "fr"})
        assert gone.status_code == 404 and "<h1>Session terminée</h1>" in gone.text
        for params, headers in (({"lang": "<script>alert(1)</script>"}, {}), ({"lang": "../../x"}, {}),
                                ({}, {"Accept-Language": "<b>" * 3000}), ({"lang": "fr" * 5000}, {})):
            odd = stranger.get("/lti/page/0123456789abcdef", params=params, headers=headers)
            assert odd.status_code == 404 and _page_lang(odd.text) == "en" and "Session ended" in odd.text
            assert "<script>alert" not in odd.text and "../" not in odd.text and "<b>" not in odd.text
