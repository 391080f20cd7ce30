"""A learner's and a teacher's browser against the LTI tool: the launch flow through the test LMS
(tests/support/lti_platform.py), a submission waited for, the teacher's page, the roster's members.  Shared by
the LTI tests (tests/service/lti/)."""

from __future__ import annotations

import re

import httpx

from tests.support.lti_platform import LoopbackPlatform, form_fields
from tests.support.service import Server, wait_for

INSTRUCTOR = ["http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"]
LEARNER = ["http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"]
EXAMPLES = "submissions/sinusoidal-pe"


def start_launch(platform: LoopbackPlatform, server: Server, user: str, **overrides) -> tuple[httpx.Client, str, dict]:
    """Login initiation at the tool, then the platform's auth answer: (browser, launch URL, form fields)."""
    browser = httpx.Client(base_url=server.url, timeout=60)
    platform.next_launch = overrides
    login = browser.get("/lti/login", params={**platform.login_params(user), "lti1p3_new_window": "1"})
    assert login.status_code == 302, login.text
    assert login.headers["location"].startswith(platform.url + "/auth?")
    assert any(name.startswith("lti1p3-state-") for name in browser.cookies), "the state cookie was not set"
    auth = httpx.get(login.headers["location"], timeout=30)
    action, fields = form_fields(auth.text)
    assert action == server.url + "/lti/launch"
    return browser, action, fields


def launch(platform: LoopbackPlatform, server: Server, user: str, **overrides) -> tuple[httpx.Client, str]:
    """A successful launch: (the browser with its session cookie, the page's CSRF token); the page's HTML
    is kept as ``browser.page``."""
    browser, action, fields = start_launch(platform, server, user, **overrides)
    answer = browser.post(action, data=fields)
    assert answer.status_code == 303, answer.text
    page = browser.get(answer.headers["location"])
    assert page.status_code == 200, page.text
    csrf = re.search(r'<meta name="csrf-token" content="([^"]+)">', page.text).group(1)
    browser.page = page.text  # type: ignore[attr-defined]
    return browser, csrf


def submit_and_wait(browser: httpx.Client, csrf: str, source: str, timeout: float = 120) -> dict:
    created = browser.post("/lti/api/submissions", json={"source": source}, headers={"X-CSRF-Token": csrf})
    assert created.status_code == 202, created.text
    sub_id = created.json()["id"]

    def done() -> dict | None:
        body = browser.get(f"/lti/api/submissions/{sub_id}", headers={"X-CSRF-Token": csrf}).json()
        return body if body["state"] == "done" else None

    return wait_for(done, timeout, interval=0.2, what="the verdict")


def _member(user: str, name: str, roles=LEARNER) -> dict:  # noqa: ANN001
    return {"user_id": user, "name": name, "status": "Active", "roles": roles}


def _source(rel: str) -> str:
    from tests.support.common import REPO

    return (REPO / EXAMPLES / rel).read_text()


def _teacher(platform: LoopbackPlatform, server: Server, user: str = "t-1", course: str = "course-1",
             roles=INSTRUCTOR, **overrides) -> tuple[httpx.Client, str]:  # noqa: ANN001
    """A teacher's launch (``overrides``: more of the launch's claims, e.g. the activity's ``custom``)."""
    browser, action, fields = start_launch(platform, server, user, roles=roles, course=course, **overrides)
    answer = browser.post(action, data=fields)
    assert answer.status_code == 303 and answer.headers["location"].startswith("/lti/teacher/"), answer.text
    page = browser.get(answer.headers["location"])
    assert page.status_code == 200, page.text
    return browser, re.search(r'<meta name="csrf-token" content="([^"]+)">', page.text).group(1)
