"""A test LMS on loopback: what Moodle or Canvas does in an LTI 1.3 launch, and nothing more.

- ``/jwks``: the platform's public key;
- ``/auth``: the OIDC authorization endpoint; answers the tool's redirect with a page that POSTs a
  signed ``id_token`` (RS256) and the ``state`` to the tool's launch URL (auto-submitting, as LMSs do);
- ``/token``: client-credentials grant, checking the tool's JWT client assertion against the tool's
  own public key, and handing out a bearer token;
- ``/lineitems/<n>/lineitem/scores``: the AGS score endpoint, recording every Score it receives;
- ``/contexts/<course>/memberships``: the NRPS roster of a course (``members[course]``), for a bearer token;
- ``/deep_link_return``: where a Deep Linking response is posted; the JWT is checked against the tool's key
  and kept in ``deep_links``.

``next_launch`` lets a test bend one claim (audience, expiry, deployment, signing key) so that each
launch check fails on its own.  Also writes the tool's key pair and its JUDGE_LTI_CONFIG file.
"""

from __future__ import annotations

import html
import http.server
import json
import re
import secrets
import threading
import time
import uuid
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urlsplit

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm

CLIENT_ID = "judge-tool-client"
DEPLOYMENT = "deployment-1"
KID = "platform-key-1"
SCORE_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
NRPS_SCOPE = "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"


def new_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def pem(key: rsa.RSAPrivateKey) -> tuple[bytes, bytes]:
    private = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
    public = key.public_key().public_bytes(serialization.Encoding.PEM,
                                           serialization.PublicFormat.SubjectPublicKeyInfo)
    return private, public


class LoopbackPlatform:
    def __init__(self, workdir: Path) -> None:
        self.key = new_key()
        self.tool_key = new_key()
        self.scores: list[dict] = []
        self.token_requests: list[dict] = []
        self.tokens: set[str] = set()
        self.scopes: dict[str, set[str]] = {}  # token -> the scopes it was granted
        self.next_launch: dict = {}
        self.launches: list[dict] = []
        self.tool_url = ""  # set once the tool runs: the course page frames it
        self.members: dict[str, list[dict]] = {}  # course id -> NRPS members
        self.deep_links: list[dict] = []  # the decoded LtiDeepLinkingResponse messages received
        self.fail_scores = 0  # answer this many score posts with 503 (a gradebook that is down)
        self.refused_scores = 0
        self._lock = threading.Lock()
        platform = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def _send(self, status: int, body: bytes, content_type: str = "application/json") -> None:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self) -> None:  # noqa: N802
                url = urlsplit(self.path)
                if url.path == "/jwks":
                    jwk = json.loads(RSAAlgorithm.to_jwk(platform.key.public_key()))
                    jwk.update(kid=KID, alg="RS256", use="sig")
                    self._send(200, json.dumps({"keys": [jwk]}).encode())
                elif url.path == "/course":  # ?user=<id>: who is signed in to the LMS
                    user = parse_qs(url.query).get("user", ["learner-1"])[0]
                    self._send(200, platform.course_page(user).encode(), "text/html; charset=utf-8")
                elif url.path == "/favicon.ico":
                    self._send(204, b"", "image/x-icon")
                elif re.fullmatch(r"/contexts/[^/]+/memberships", url.path):
                    status, answer = platform.memberships(url.path.split("/")[2], self.headers)
                    self._send(status, json.dumps(answer).encode(),
                               "application/vnd.ims.lti-nrps.v2.membershipcontainer+json")
                elif url.path == "/auth":
                    params = {k: v[0] for k, v in parse_qs(url.query).items()}
                    self._send(200, platform.auth_page(params).encode(), "text/html; charset=utf-8")
                else:
                    self._send(404, b"{}")

            def do_POST(self) -> None:  # noqa: N802
                url = urlsplit(self.path)
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                if url.path == "/token":
                    status, answer = platform.token(parse_qs(body.decode()))
                    self._send(status, json.dumps(answer).encode())
                elif url.path == "/deep_link_return":
                    status, answer = platform.deep_link_return(parse_qs(body.decode()))
                    self._send(status, answer.encode(), "text/html; charset=utf-8")
                elif re.fullmatch(r"/lineitems/\d+/lineitem/scores", url.path):
                    status = platform.score(url.path, self.headers, body)
                    self._send(status, b"{}")
                else:
                    self._send(404, b"{}")

            def log_message(self, *args) -> None:  # noqa: ANN002
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.issuer = self.url  # the platform's issuer is its own URL, as Moodle's is
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.config_path = self._write_tool_config(workdir)

    # -- what the tool is given ------------------------------------------------------------------
    def _write_tool_config(self, workdir: Path) -> Path:
        private, public = pem(self.tool_key)
        (workdir / "tool-private.pem").write_bytes(private)
        (workdir / "tool-public.pem").write_bytes(public)
        config = {self.issuer: [{
            "default": True, "client_id": CLIENT_ID, "auth_login_url": f"{self.url}/auth",
            "auth_token_url": f"{self.url}/token", "key_set_url": f"{self.url}/jwks",
            "private_key_file": "tool-private.pem", "public_key_file": "tool-public.pem",
            "deployment_ids": [DEPLOYMENT]}]}
        path = workdir / "lti-platforms.json"
        path.write_text(json.dumps(config, indent=2))
        return path

    def login_params(self, user: str = "learner-1") -> dict[str, str]:
        """What the LMS sends to the tool's login initiation URL (third-party initiated login)."""
        return {"iss": self.issuer, "login_hint": user, "target_link_uri": "", "lti_message_hint": "activity-1",
                "client_id": CLIENT_ID, "lti_deployment_id": DEPLOYMENT}

    def course_page(self, user: str = "learner-1") -> str:
        """The LMS's activity page: the tool in an iframe, started by a third-party initiated login."""
        query = urlencode(self.login_params(user))
        return ('<!DOCTYPE html><html><head><title>Course</title><link rel="icon" href="data:,"></head><body>'
                f'<h1>Transformers course</h1><iframe id="tool" title="exercise" width="1000" height="1400" '
                f'src="{html.escape(self.tool_url)}/lti/login?{html.escape(query)}"></iframe></body></html>')

    # -- the launch -----------------------------------------------------------------------------------
    def claims(self, params: dict, overrides: dict) -> dict:
        now = int(time.time())
        problem = overrides.get("problem", "sinusoidal-pe")
        claims = {
            "iss": overrides.get("iss", self.issuer), "aud": overrides.get("aud", params.get("client_id", CLIENT_ID)),
            "sub": params.get("login_hint", "learner-1"), "iat": now, "exp": now + overrides.get("exp_in", 300),
            "nonce": params.get("nonce", ""), "name": overrides.get("name", "Ada Learner"),
            "https://purl.imsglobal.org/spec/lti/claim/message_type": overrides.get("message_type",
                                                                                    "LtiResourceLinkRequest"),
            "https://purl.imsglobal.org/spec/lti/claim/version": "1.3.0",
            "https://purl.imsglobal.org/spec/lti/claim/deployment_id": overrides.get("deployment_id", DEPLOYMENT),
            "https://purl.imsglobal.org/spec/lti/claim/target_link_uri": params.get("redirect_uri", ""),
            "https://purl.imsglobal.org/spec/lti/claim/resource_link": {"id": "activity-1", "title": "PE"},
            "https://purl.imsglobal.org/spec/lti/claim/roles": overrides.get("roles", [
                "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"]),
            "https://purl.imsglobal.org/spec/lti/claim/context": {"id": overrides.get("course", "course-1"),
                                                                  "title": "Transformers"},
        }
        if overrides.get("course", "course-1") is None:  # a launch outside any course
            claims.pop("https://purl.imsglobal.org/spec/lti/claim/context")
        claims |= {
            "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice": {
                "context_memberships_url": f"{self.url}/contexts/{overrides.get('course', 'course-1')}/memberships",
                "service_versions": ["2.0"]},
            "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint": {
                "scope": [SCORE_SCOPE], "lineitems": f"{self.url}/lineitems",
                "lineitem": f"{self.url}/lineitems/1/lineitem"},
        }
        if "presentation" in overrides:  # the launch presentation claim (its locale), as the LMS sends it
            claims["https://purl.imsglobal.org/spec/lti/claim/launch_presentation"] = overrides["presentation"]
        if problem is not None:
            claims["https://purl.imsglobal.org/spec/lti/claim/custom"] = {"problem": problem,
                                                                          **overrides.get("custom", {})}
        if claims["https://purl.imsglobal.org/spec/lti/claim/message_type"] == "LtiDeepLinkingRequest":
            claims.pop("https://purl.imsglobal.org/spec/lti/claim/resource_link")
            claims["https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"] = {
                "deep_link_return_url": overrides.get("return_url", f"{self.url}/deep_link_return"),
                "accept_types": ["ltiResourceLink"],
                "accept_presentation_document_targets": ["iframe", "window"], "accept_multiple": False,
                "data": overrides.get("data", "opaque-data-42")}
        return claims

    def auth_page(self, params: dict) -> str:
        with self._lock:
            overrides, self.next_launch = self.next_launch, {}
        claims = self.claims(params, overrides)
        key = overrides.get("sign_with", self.key)
        token = jwt.encode(claims, key, algorithm="RS256", headers={"kid": KID})
        self.launches.append({"params": params, "claims": claims, "id_token": token})
        action = html.escape(params.get("redirect_uri", ""))
        return (f'<!DOCTYPE html><html><head><title>Launching</title><link rel="icon" href="data:,"></head><body>'
                f'<form method="post" action="{action}">'
                f'<input type="hidden" name="id_token" value="{html.escape(token)}">'
                f'<input type="hidden" name="state" value="{html.escape(params.get("state", ""))}">'
                f'<noscript><button type="submit">Continue</button></noscript></form>'
                f'<script>document.forms[0].submit()</script></body></html>')

    # -- services ---------------------------------------------------------------------------------------
    def token(self, form: dict) -> tuple[int, dict]:
        fields = {k: v[0] for k, v in form.items()}
        self.token_requests.append(fields)
        if fields.get("grant_type") != "client_credentials":
            return 400, {"error": "unsupported_grant_type"}
        try:
            claims = jwt.decode(fields.get("client_assertion", ""), self.tool_key.public_key(), algorithms=["RS256"],
                                audience=f"{self.url}/token")
        except jwt.InvalidTokenError as exc:
            return 401, {"error": "invalid_client", "error_description": str(exc)}
        if claims.get("iss") != CLIENT_ID or claims.get("sub") != CLIENT_ID:
            return 401, {"error": "invalid_client"}
        token = secrets.token_urlsafe(16)
        self.tokens.add(token)
        self.scopes[token] = set(fields.get("scope", "").split())
        return 200, {"access_token": token, "token_type": "Bearer", "expires_in": 3600,
                     "scope": fields.get("scope", "")}

    def score(self, path: str, headers, body: bytes) -> int:  # noqa: ANN001
        bearer = headers.get("Authorization", "").removeprefix("Bearer ")
        if bearer not in self.tokens:
            return 401
        if headers.get("Content-Type") != "application/vnd.ims.lis.v1.score+json":
            return 415
        with self._lock:
            if self.fail_scores > 0:
                self.fail_scores -= 1
                self.refused_scores += 1
                return 503
            self.scores.append({"path": path, "score": json.loads(body), "id": str(uuid.uuid4())})
        return 200

    def memberships(self, course: str, headers) -> tuple[int, dict]:  # noqa: ANN001
        token = headers.get("Authorization", "").removeprefix("Bearer ")
        if token not in self.tokens:
            return 401, {"error": "unauthorized"}
        if NRPS_SCOPE not in self.scopes.get(token, set()):
            return 403, {"error": "insufficient_scope", "scope": NRPS_SCOPE}
        return 200, {"id": f"{self.url}/contexts/{course}/memberships", "context": {"id": course},
                     "members": self.members.get(course, [])}

    def deep_link_return(self, form: dict) -> tuple[int, str]:
        """Check the tool's signed LtiDeepLinkingResponse as a platform does, and keep it."""
        try:
            message = jwt.decode(form.get("JWT", [""])[0], self.tool_key.public_key(), algorithms=["RS256"],
                                 audience=self.issuer)
        except jwt.InvalidTokenError as exc:
            return 400, f"invalid deep linking response: {exc}"
        self.deep_links.append(message)
        return 200, "<!DOCTYPE html><title>Added</title><p>Activity added.</p>"

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def form_fields(page: str) -> tuple[str, dict[str, str]]:
    """The action and hidden fields of the platform's auto-submitting launch form."""
    action = html.unescape(re.search(r'<form method="post" action="([^"]*)"', page).group(1))
    fields = {m.group(1): html.unescape(m.group(2))
              for m in re.finditer(r'<input type="hidden" name="([^"]+)" value="([^"]*)">', page)}
    return action, fields


def start_tool(work: Path, platform: LoopbackPlatform, **extra_env: str):  # noqa: ANN201 - a service_support.Server
    """`judge serve` with this platform registered (JUDGE_LTI_CONFIG), on loopback."""
    from tests.support.service import Server, service_env

    env = service_env(JUDGE_LTI_CONFIG=str(platform.config_path), JUDGE_CALLBACK_BACKOFF_SECONDS="0.2",
                      JUDGE_CALLBACK_POLL_SECONDS="0.1", **extra_env)
    server = Server(work, f"sqlite:///{work}/judge.sqlite3", env, workers=2)
    platform.tool_url = server.url
    return server


def start_tool_on_a_copy(work: Path, platform: LoopbackPlatform, **extra_env: str):  # noqa: ANN201 - a Server
    """:func:`start_tool` grading from a copy of the repository's problems (``server.problems``), which a test
    may change on disk (add a case, loosen a tolerance); ``server.db`` is its store's URL."""
    from tests.support.problems import problems_copy

    problems = problems_copy(work / "problems")
    server = start_tool(work, platform, JUDGE_PROBLEMS_DIR=str(problems), **extra_env)
    server.problems = problems
    server.db = f"sqlite:///{work}/judge.sqlite3"
    return server
