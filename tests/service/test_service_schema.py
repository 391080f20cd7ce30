"""The OpenAPI document tells the truth: schemathesis (every check it has) against a real `judge serve`,
the platform API with a token, and the learner page's and the teacher page's APIs with a teacher's real LTI
session (cookie + CSRF token)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys

from tests.support.common import unavailable
from tests.support.lti_client import start_launch
from tests.support.lti_platform import LoopbackPlatform, start_tool
from tests.support.service import require_sandbox

TOKEN = "schema-token-0123456789"
# A reused Idempotency-Key with another body is a 422 (as the IETF idempotency-key draft says); the
# schema cannot say which keys were used before, so for the two POSTs that accept the key, 422 is
# expected too.  A listing's `cursor` is any string to the schema, but only one this token was given is a
# position: any other is a 400.  Everything else must be accepted when the schema says it is valid.
CONFIG = """
[[operations]]
include-name = "POST /v1/submissions"
checks.positive_data_acceptance.expected-statuses = ["2xx", "401", "403", "404", "409", "422", "429", "5xx"]

[[operations]]
include-name = "POST /v1/submissions/batch"
checks.positive_data_acceptance.expected-statuses = ["2xx", "401", "403", "404", "409", "422", "429", "5xx"]

[[operations]]
include-name = "GET /v1/submissions"
checks.positive_data_acceptance.expected-statuses = ["2xx", "400", "401", "403", "404", "429"]
"""


def test_schemathesis_finds_no_mismatch(tmp_path):
    require_sandbox()
    if shutil.which("schemathesis") is None and not _module_available():
        unavailable("schemathesis NOT INSTALLED (pip install '.[test]'), SCHEMA TEST NOT RUN")
    platform = LoopbackPlatform(tmp_path)
    server = start_tool(tmp_path, platform, JUDGE_API_TOKENS=f"alpha:{TOKEN}",
                        JUDGE_LEARN_CODES="ml101:code-for-schema", JUDGE_LEARNER_RATE_LIMIT="1000:10000")
    try:
        # a teacher's LTI session: it reaches the learner page's API and the teacher's (the class, rejudges)
        platform.members["course-1"] = [{"user_id": "s-1", "name": "Fuzz Learner", "roles": [
            "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"]}]
        browser, action, fields = start_launch(platform, server, "t-1", roles=[
            "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"])
        try:
            opened = browser.post(action, data=fields)
            assert opened.status_code == 303 and "/lti/teacher/" in opened.headers["location"], opened.text
            page = browser.get(opened.headers["location"]).text
            csrf = re.search(r'<meta name="csrf-token" content="([^"]+)">', page).group(1)
            cookie = "; ".join(f"{k}={v}" for k, v in browser.cookies.items())
        finally:
            browser.close()
        config = tmp_path / "schemathesis.toml"
        config.write_text(CONFIG)
        run = subprocess.run(
            [sys.executable, "-m", "schemathesis.cli", "--config-file", str(config), "run",
             f"{server.url}/openapi.json", "--checks", "all", "--max-examples", "15", "--seed", "13",
             "--no-shrink", "--workers", "1", "--request-timeout", "60",
             "-H", f"Authorization: Bearer {TOKEN}", "-H", f"X-CSRF-Token: {csrf}", "-H", f"Cookie: {cookie}"],
            capture_output=True, text=True, timeout=600,
            cwd=tmp_path)  # its cache of crashes lands in the test's folder, never in the checkout
        assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-2000:]
        assert "Authentication failed" not in run.stdout, "every operation was reached with valid credentials"
    finally:
        server.stop()
        platform.stop()


def _module_available() -> bool:
    try:
        import schemathesis  # noqa: F401
    except ImportError:
        return False
    return True
