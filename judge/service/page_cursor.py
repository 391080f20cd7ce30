"""The opaque cursor of ``GET /v1/submissions``: where the next page starts, signed for the token that asked.

Why signed: a cursor is a position, (created_at, id) of the last row shown.  The store's query always keeps the
caller's own rows, so no cursor could widen what is visible; the signature adds that a cursor copied from
another token, or edited, is refused with a clear 400 rather than silently read as a position in someone else's
sequence.  The key is the caller's own token (a secret only that platform and the server hold), so no new
secret has to be configured and a token rotated ends its cursors.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import math

from judge.service.errors import ApiError

_VERSION = 1
_SIG_BYTES = 16


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _signature(key: str, platform: str, payload: bytes) -> bytes:
    return hmac.new(key.encode(), platform.encode() + b"\0" + payload, hashlib.sha256).digest()[:_SIG_BYTES]


def encode(key: str, platform: str, created_at: float, sub_id: str) -> str:
    """The cursor after the row ``(created_at, sub_id)`` for ``platform``, signed with ``key``."""
    payload = json.dumps([_VERSION, created_at, sub_id], separators=(",", ":")).encode()
    return f"{_b64(payload)}.{_b64(_signature(key, platform, payload))}"


def decode(key: str, platform: str, cursor: str) -> tuple[float, str]:
    """The position a cursor names, if ``platform``'s key signed it (ApiError 400 otherwise)."""
    refused = ApiError(400, "invalid_cursor", "cursor: not a cursor this token was given (pass next_cursor from "
                                              "a previous page of your own, unchanged)")
    body, dot, sig = cursor.partition(".")
    try:
        payload, given = _unb64(body), _unb64(sig)
    except (binascii.Error, ValueError):
        raise refused from None
    if not dot or not hmac.compare_digest(given, _signature(key, platform, payload)):
        raise refused
    try:
        version, created_at, sub_id = json.loads(payload)
    except (ValueError, TypeError):
        raise refused from None
    if (version != _VERSION or not isinstance(created_at, (int, float)) or isinstance(created_at, bool)
            or not math.isfinite(created_at) or not isinstance(sub_id, str) or len(sub_id) > 64):
        raise refused
    return float(created_at), sub_id
