"""Callbacks: a signed POST of the finished submission to its ``callback_url``, retried with backoff.

Delivery state lives in the store, so a callback survives a restart of the
server and is sent by whichever server process claims it.  The body is the
submission exactly as ``GET /v1/submissions/{id}`` shows it; the header
``X-Judge-Signature: sha256=<hex>`` is HMAC-SHA256 over the raw body with the
platform's callback secret (``JUDGE_CALLBACK_SECRETS``), or its API token.

A delivery says what it is about: the submission (``X-Judge-Submission``, ``id``), the verdict's version
(``X-Judge-Verdict-Version``, ``verdict_version``: 1 for the first verdict, +1 for each rejudge applied) and
the bundle version it was graded with (``bundle_digest``).  A delivery is bound to the version it carries: a
rejudge applied while one is in flight is delivered after it, never marked delivered unsent.  Callbacks
connect to public addresses only (:mod:`judge.service.outbound`).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import time

import httpx

from judge._version import __version__
from judge.service.delivery import Dispatcher
from judge.service.outbound import AddressPolicy, AddressRefused, PublicOnlyTransport
from judge.service.schemas import submission_view
from judge.service.settings import Settings
from judge.service.store import Store

log = logging.getLogger("judge.service")
SIGNATURE_HEADER = "X-Judge-Signature"
VERSION_HEADER = "X-Judge-Verdict-Version"


def sign(key: bytes, body: bytes) -> str:
    return "sha256=" + hmac.new(key, body, hashlib.sha256).hexdigest()


def verify(key: bytes, body: bytes, header: str) -> bool:
    """What a platform does with a callback: compare the signature in constant time."""
    return hmac.compare_digest(sign(key, body), header or "")


class CallbackDispatcher(Dispatcher):
    name = "judge-callbacks"

    def __init__(self, store: Store, settings: Settings) -> None:
        super().__init__(settings, workers=4)
        self.store = store
        transport = PublicOnlyTransport(AddressPolicy.of(settings.callback_allow_networks))
        self._client = httpx.Client(transport=transport, timeout=settings.callback_timeout_seconds,
                                    follow_redirects=False, trust_env=False,
                                    headers={"User-Agent": f"numpy-judge/{__version__}"})

    def stop(self) -> None:
        super().stop()
        self._client.close()

    def dispatch_due(self) -> None:
        now = time.time()
        lease = now + self.settings.callback_timeout_seconds + 30
        for due in self.store.due_callbacks(now):
            if self.in_flight(due.id):
                continue
            if self.store.claim_callback(due.id, due.callback_attempts, lease):
                self.send(due.id, self._deliver, due.id, due.callback_attempts + 1)

    def _deliver(self, sub_id: str, attempt: int) -> None:
        try:
            row = self.store.get(sub_id)
            if row is None:
                return
            version = row.verdict_version
            key = self.settings.callback_key(row.platform)
            if key is None:
                self.store.callback_result(sub_id, False, f"no callback key for platform {row.platform!r}", None,
                                           version)
                return
            body = json.dumps(submission_view(row), separators=(",", ":")).encode()
            headers = {"Content-Type": "application/json", SIGNATURE_HEADER: sign(key, body),
                       "X-Judge-Submission": sub_id, VERSION_HEADER: str(version),
                       "X-Judge-Delivery-Attempt": str(attempt)}
            error = None
            try:
                response = self._client.post(row.callback_url, content=body, headers=headers)  # type: ignore[arg-type]  # a due callback has its URL
                if 200 <= response.status_code < 300:
                    self.store.callback_result(sub_id, True, None, None, version)
                    log.info("submission %s: callback of verdict %d delivered (attempt %d)", sub_id, version,
                             attempt)
                    return
                error = f"HTTP {response.status_code}"
            except AddressRefused as exc:  # not retried: the address will not become public by waiting
                log.warning("submission %s: callback refused: %s", sub_id, exc)
                self.store.callback_result(sub_id, False, f"refused: {exc}", None, version)
                return
            except httpx.HTTPError as exc:
                error = f"{type(exc).__name__}: {exc}"
            if attempt >= self.settings.callback_max_attempts:
                log.warning("submission %s: callback failed for good after %d attempts: %s", sub_id, attempt, error)
                self.store.callback_result(sub_id, False, error, None, version)
            else:
                log.info("submission %s: callback attempt %d failed (%s); retrying", sub_id, attempt, error)
                self.store.callback_result(sub_id, False, error, time.time() + self.backoff(attempt), version)
        except Exception:  # noqa: BLE001 - the lease makes it due again
            log.exception("submission %s: callback delivery crashed", sub_id)
