"""The tool's pages refuse script from anywhere but the judge's own static files.

Every HTML answer under ``/lti/`` and ``/learn/`` carries a Content-Security-Policy: scripts, styles and
fetches from this origin only, no inline script or style (a string that slips into a page unescaped runs
nothing), images from here or ``data:`` (the verdict's pictures), no plugins, no ``<base>``, and ``form-action``
limited to where the page must post: nowhere for the learner's and the teacher's pages (they call the API with
``fetch``), this origin for the sign-in form and the exercise picker, and the platform's return URL's origin
for the Deep Linking answer.  A page sets its own ``form-action`` with :func:`page_headers`; :class:`PageHeaders`
gives every other HTML answer (error pages included) the strictest one.

Deep Linking return URLs come from the platform's signed launch, but a signed ``javascript:`` URL is still
script in the tool's origin once a form posts to it; :func:`return_url_allowed` lets only ``https`` through
(``http`` on loopback, for a developer's LMS), before the picker is even shown.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from judge.service.hosts import is_loopback

PAGE_PREFIXES = ("/lti/", "/learn/")


def policy(form_action: str = "'none'") -> str:
    """The pages' Content-Security-Policy with this ``form-action`` source list."""
    return ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
            f"form-action {form_action}; base-uri 'none'; object-src 'none'; frame-ancestors *")


def page_headers(form_action: str = "'none'", referrer: str = "no-referrer") -> dict[str, str]:
    """What every page of the tool answers with: its policy, never cached, no referrer (a form that must prove
    it is this site's own says ``same-origin``: with ``no-referrer`` browsers send ``Origin: null``), no MIME
    sniffing."""
    return {"Content-Security-Policy": policy(form_action), "Cache-Control": "no-store",
            "Referrer-Policy": referrer, "X-Content-Type-Options": "nosniff"}


def return_url_allowed(url: object) -> bool:
    """An ``https`` URL with a host, or ``http`` to a loopback host; never ``javascript:``, ``data:`` or the like."""
    if not isinstance(url, str) or any(ord(c) < 0x21 or c == "\x7f" for c in url):
        return False
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
    except ValueError:
        return False
    if parts.scheme == "https":
        return bool(host)
    return parts.scheme == "http" and is_loopback(host)


def origin(url: str) -> str:
    """``scheme://host[:port]`` of an allowed URL, as a CSP source expression."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc.rpartition('@')[2]}"


class PageHeaders:
    """ASGI middleware: an HTML answer under ``/lti/`` or ``/learn/`` without a policy gets :func:`page_headers`."""

    def __init__(self, app) -> None:  # noqa: ANN001 - an ASGI app
        self.app = app

    async def __call__(self, scope, receive, send) -> None:  # noqa: ANN001
        if scope["type"] != "http" or not scope["path"].startswith(PAGE_PREFIXES):
            return await self.app(scope, receive, send)

        async def with_policy(message) -> None:  # noqa: ANN001
            if message["type"] == "http.response.start":
                headers = list(message.get("headers") or [])
                names = {k.lower() for k, _ in headers}
                content_type = next((v for k, v in headers if k.lower() == b"content-type"), b"")
                if content_type.startswith(b"text/html") and b"content-security-policy" not in names:
                    headers += [(k.lower().encode(), v.encode()) for k, v in page_headers().items()
                                if k.lower().encode() not in names]
                    message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, with_policy)
