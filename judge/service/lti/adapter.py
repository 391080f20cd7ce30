"""The small FastAPI adapter pylti1p3 needs: request params, cookies, a database for its launch data,
redirects, and an access-token cache for score passback.

pylti1p3 does the protocol (OIDC login, id_token signature against the platform's JWKS, issuer,
audience via the registration's client id, expiry, deployment id, message type).  What it leaves to
the framework, and what this adapter adds:

- nonces are stateless until used (:class:`Nonces`): the login, open to anyone, writes no row; a nonce is
  consumed on first use, and only after the id_token's signature is checked (pylti1p3next only checks that it
  was issued, and before the signature);
- the state cookie is set ``SameSite=None; Secure; Partitioned`` behind HTTPS (so it comes back into
  an LMS's iframe), ``Lax`` on plain HTTP (a developer's loopback);
- launch data lives in the service's database (``judge_lti_kv``), so several servers share it.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
import time
from html import escape
from typing import Any
from urllib.parse import urlencode

from fastapi.responses import HTMLResponse, RedirectResponse, Response
from pylti1p3.cookie import CookieService
from pylti1p3.launch_data_storage.base import LaunchDataStorage
from pylti1p3.message_launch import MessageLaunch
from pylti1p3.oidc_login import OIDCLogin
from pylti1p3.redirect import Redirect
from pylti1p3.request import Request
from pylti1p3.service_connector import ServiceConnector
from pylti1p3.session import SessionService

from judge.i18n import messages as m
from judge.i18n.catalog import say
from judge.service.lti.csp import page_headers
from judge.service.lti.page import simple_page
from judge.service.lti.tables import LtiStore

COOKIE_PREFIX = "lti1p3"
NONCE_SECONDS = 600  # from the login to the launch: a platform answers within seconds


def set_cookie(response: Response, name: str, value: str, max_age: int | None, secure: bool,
               path: str = "/") -> None:
    """Cookies for a page inside an LMS frame: cross-site needs ``SameSite=None; Secure`` (HTTPS only)."""
    if secure:
        response.set_cookie(name, value, max_age=max_age, path=path, httponly=True, secure=True, samesite="none",
                            partitioned=True)
    else:
        response.set_cookie(name, value, max_age=max_age, path=path, httponly=True, samesite="lax")


class LtiRequest(Request):
    """A FastAPI request's form and query parameters and cookies, as pylti1p3 asks for them."""

    def __init__(self, params: dict[str, str], cookies: dict[str, str], secure: bool) -> None:
        self.params, self.cookies, self.secure = params, cookies, secure

    @property
    def session(self) -> None:
        return None

    def is_secure(self) -> bool:
        return self.secure

    def get_param(self, key: str) -> str:
        return self.params.get(key, "")


class Cookies(CookieService):
    """Reads the request's cookies; collects the ones to set until :meth:`apply`."""

    def __init__(self, request: LtiRequest) -> None:
        self.request = request
        self.pending: list[tuple[str, str, int | None]] = []

    def _name(self, name: str) -> str:
        return f"{COOKIE_PREFIX}-{name}"

    def get_cookie(self, name: str) -> str | None:
        return self.request.cookies.get(self._name(name))

    def set_cookie(self, name: str, value: str | int, exp: int | None = 3600) -> None:
        self.pending.append((self._name(name), str(value), exp))

    def apply(self, response: Response) -> Response:
        for name, value, exp in self.pending:
            set_cookie(response, name, value, exp, self.request.secure)
        return response


class DatabaseStorage(LaunchDataStorage[Any]):
    """pylti1p3's key/value store in ``judge_lti_kv`` (no per-browser session id: the state cookie binds)."""

    _session_cookie_name = ""

    def __init__(self, lti: LtiStore) -> None:
        super().__init__()
        self.lti = lti

    def get_session_cookie_name(self) -> None:
        return None

    def can_set_keys_expiration(self) -> bool:
        return True

    def get_value(self, key: str) -> Any:
        return self.lti.kv_get(self._prepare_key(key))

    def set_value(self, key: str, value: Any, exp: int | None = None) -> None:
        self.lti.kv_set(self._prepare_key(key), value, exp or 3600)

    def check_value(self, key: str) -> bool:
        return self.lti.kv_get(self._prepare_key(key)) is not None


class Nonces:
    """Nonces the tool recognises without storing them: ``<issued>.<random>.<HMAC of both>`` under a key derived
    from the tool's private keys.  So the login, which anyone may call, writes no row; a nonce is written down
    only when it is used, by a launch whose id_token's signature was already checked (:meth:`Launch.validate`),
    so that it is used once and a forged token cannot use up a real launch's nonce."""

    def __init__(self, key: bytes) -> None:
        self.key = key

    def _mac(self, issued: str, random: str) -> str:
        return hmac.new(self.key, f"{issued}.{random}".encode(), hashlib.sha256).hexdigest()[:32]

    def mint(self) -> str:
        issued, random = str(int(time.time())), secrets.token_urlsafe(16)
        return f"{issued}.{random}.{self._mac(issued, random)}"

    def valid_until(self, nonce: str) -> float | None:
        """Until when this nonce may be used (None: not one of ours, or too old)."""
        issued, _, rest = nonce.partition(".")
        random, _, mac = rest.partition(".")
        if not (issued.isdigit() and random and hmac.compare_digest(mac.encode(), self._mac(issued, random).encode())):
            return None
        until = int(issued) + NONCE_SECONDS
        return until if int(issued) - 60 <= time.time() <= until else None


class Sessions(SessionService):
    """pylti1p3's session service over :class:`DatabaseStorage`, with stateless single-use nonces."""

    def __init__(self, storage: DatabaseStorage, nonces: Nonces) -> None:  # noqa: D107 - no Flask session to wrap
        self.data_storage = storage
        self.nonces = nonces

    def save_nonce(self, nonce: str) -> None:
        """Nothing to save: :class:`Nonces` recognises its own."""

    def check_nonce(self, nonce: str) -> bool:
        until = self.nonces.valid_until(str(nonce))
        return until is not None and self.data_storage.lti.kv_claim(  # type: ignore[attr-defined]  # a DatabaseStorage
            self._get_key("used-nonce", hashlib.sha256(str(nonce).encode()).hexdigest()), True, until)


class _Redirect(Redirect[Response]):
    def __init__(self, location: str) -> None:
        self.location = location

    def do_redirect(self) -> Response:
        return RedirectResponse(self.location, status_code=302)

    def do_js_redirect(self) -> Response:
        return self.do_redirect()

    def set_redirect_url(self, location: str) -> None:
        self.location = location

    def get_redirect_url(self) -> str:
        return self.location


class Login(OIDCLogin):
    nonces: Nonces
    lang: str = "en"  #: the cookie check page's language (its texts are set in it: ``enable_check_cookies``)

    def get_redirect(self, url: str) -> _Redirect:
        return _Redirect(url)

    def _generate_nonce(self) -> str:
        return self.nonces.mint()

    def get_cookies_allowed_js_check(self) -> Response:
        """pylti1p3's check page has inline script and style, which the pages' policy refuses: the same check
        as a plain page and a static script, the new-window URL built here (so it works without script too)."""
        protocol, params = self.get_cookies_allowed_js_check_params()
        again = "/lti/login?" + urlencode(params)
        body = (f'<div id="cookie-check" data-protocol="{escape(protocol)}" data-url="{escape(again)}">'
                f'<p id="cookie-check-loading">{escape(self._cookies_check_loading_text)}</p>'
                f'<p id="cookie-check-warning" hidden><strong>{escape(self._cookies_unavailable_msg_main_text)}'
                f'</strong> <a href="{escape(again)}" target="_blank" rel="noopener">'
                f'{escape(self._cookies_unavailable_msg_click_text)}</a></p></div>'
                f'<noscript><p><a href="{escape(again)}" target="_blank" rel="noopener">'
                f'{escape(self._cookies_unavailable_msg_click_text)}</a></p></noscript>'
                '<script src="/lti/static/cookiecheck.js"></script>')
        return HTMLResponse(simple_page(say(m.LOGIN_OPENING_TITLE, self.lang), body, self.lang),
                            headers=page_headers())


class Launch(MessageLaunch):
    def _get_request_param(self, key: str) -> str:
        return self._request.get_param(key)

    def validate(self) -> Launch:
        """pylti1p3's checks with the nonce's after the signature's and the deployment's (pylti1p3 consumes the
        nonce first, so anyone could spend a real launch's nonce with an unsigned token carrying it)."""
        self._validated = True
        try:
            return (self.validate_state().validate_jwt_format().validate_registration().validate_jwt_signature()  # type: ignore[return-value]  # each step returns self
                    .validate_deployment().validate_nonce().validate_message().save_launch_data())
        except Exception:
            self._validated = False
            raise


class CachingConnector(ServiceConnector):
    """Access tokens for AGS, cached in memory until shortly before they expire (one per scope set)."""

    _tokens: dict[str, tuple[str, float]] = {}
    _lock = threading.Lock()

    def _scope_key(self, scopes) -> str:  # noqa: ANN001 - one issuer may register several client ids
        return f"{self._registration.get_client_id()}|{super()._scope_key(scopes)}"

    def _get_cached_access_token(self, scope_key: str) -> str | None:
        with self._lock:
            token, until = self._tokens.get(scope_key, ("", 0.0))
        return token if token and until > time.time() else None

    def _cache_access_token(self, scope_key: str, access_token: str, expires_in: float) -> None:
        with self._lock:
            self._tokens[scope_key] = (access_token, time.time() + max(0.0, float(expires_in or 0) - 30))
