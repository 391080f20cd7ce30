"""Callbacks: a signed POST of the finished submission to its ``callback_url``, retried with backoff.

Delivery state lives in the store, so a callback survives a restart of the
server and is sent by whichever server process claims it.  The body is the
submission exactly as ``GET /v1/submissions/{id}`` shows it; the header
``X-Judge-Signature: sha256=<hex>`` is HMAC-SHA256 over the raw body with the
platform's callback secret (``JUDGE_CALLBACK_SECRETS``), or its API token.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import httpx

from judge._version import __version__
from judge.service.schemas import submission_view
from judge.service.settings import Settings
from judge.service.store import Store

log = logging.getLogger("judge.service")
SIGNATURE_HEADER = "X-Judge-Signature"


def sign(key: bytes, body: bytes) -> str:
    return "sha256=" + hmac.new(key, body, hashlib.sha256).hexdigest()


def verify(key: bytes, body: bytes, header: str) -> bool:
    """What a platform does with a callback: compare the signature in constant time."""
    return hmac.compare_digest(sign(key, body), header or "")


class CallbackDispatcher:
    def __init__(self, store: Store, settings: Settings) -> None:
        self.store = store
        self.settings = settings
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="judge-callback")
        self._client = httpx.Client(timeout=settings.callback_timeout_seconds, follow_redirects=False,
                                    headers={"User-Agent": f"numpy-judge/{__version__}"})
        self._thread: threading.Thread | None = None
        self._inflight: set[str] = set()
        self._lock = threading.Lock()

    def start(self) -> None:
        self._thread = threading.Thread(target=self._loop, name="judge-callbacks", daemon=True)
        self._thread.start()

    def wake(self, _row: dict | None = None) -> None:
        self._wake.set()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._pool.shutdown(wait=False, cancel_futures=True)
        self._client.close()

    def backoff(self, attempts: int) -> float:
        return min(self.settings.callback_backoff_seconds * (2 ** max(0, attempts - 1)),
                   self.settings.callback_backoff_max_seconds)

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                self._dispatch_due()
            except Exception:  # noqa: BLE001 - e.g. the store is briefly unreachable
                log.exception("callback dispatch failed")
            self._wake.wait(self.settings.callback_poll_seconds)
            self._wake.clear()

    def _dispatch_due(self) -> None:
        now = time.time()
        lease = now + self.settings.callback_timeout_seconds + 30
        for due in self.store.due_callbacks(now):
            with self._lock:
                if due["id"] in self._inflight:
                    continue
            if self.store.claim_callback(due["id"], due["callback_attempts"], lease):
                with self._lock:
                    self._inflight.add(due["id"])
                self._pool.submit(self._deliver, due["id"], due["callback_attempts"] + 1)

    def _deliver(self, sub_id: str, attempt: int) -> None:
        try:
            row = self.store.get(sub_id)
            if row is None:
                return
            key = self.settings.callback_key(row["platform"])
            if key is None:
                self.store.callback_result(sub_id, False, f"no callback key for platform {row['platform']!r}", None)
                return
            body = json.dumps(submission_view(row), separators=(",", ":")).encode()
            headers = {"Content-Type": "application/json", SIGNATURE_HEADER: sign(key, body),
                       "X-Judge-Submission": sub_id, "X-Judge-Delivery-Attempt": str(attempt)}
            error = None
            try:
                response = self._client.post(row["callback_url"], content=body, headers=headers)
                if 200 <= response.status_code < 300:
                    self.store.callback_result(sub_id, True, None, None)
                    log.info("submission %s: callback delivered (attempt %d)", sub_id, attempt)
                    return
                error = f"HTTP {response.status_code}"
            except httpx.HTTPError as exc:
                error = f"{type(exc).__name__}: {exc}"
            if attempt >= self.settings.callback_max_attempts:
                log.warning("submission %s: callback failed for good after %d attempts: %s", sub_id, attempt, error)
                self.store.callback_result(sub_id, False, error, None)
            else:
                log.info("submission %s: callback attempt %d failed (%s); retrying", sub_id, attempt, error)
                self.store.callback_result(sub_id, False, error, time.time() + self.backoff(attempt))
        except Exception:  # noqa: BLE001 - the lease makes it due again
            log.exception("submission %s: callback delivery crashed", sub_id)
        finally:
            with self._lock:
                self._inflight.discard(sub_id)
            self._wake.set()
