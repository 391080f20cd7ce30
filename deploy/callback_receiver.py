"""A callback receiver to try `judge serve`'s callbacks with, and to start a platform's own from.

    python3 deploy/callback_receiver.py --port 9000 --key "$TOKEN"     # prints each callback it verified

It stands for a course platform: it takes the judge's POSTs, checks ``X-Judge-Signature`` (HMAC-SHA256 of the raw
body, keyed with the platform's callback secret or, without one, its API token: README, "Callbacks") in constant
time, answers 204 to a genuine callback and 401 to anything else, and prints one line per verified callback:
the submission's id, state and verdict.  Delivery is at least once, so a platform deduplicates on ``id``; this
example prints a repeat as such.  Standard library only; listens on loopback unless told otherwise.
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import json
import os
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def genuine(key: bytes, body: bytes, signature: str) -> bool:
    expected = "sha256=" + hmac.new(key, body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, signature or "")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Receive and verify judge serve's callbacks (README: Callbacks).")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=9000)
    parser.add_argument("--key", default=os.environ.get("JUDGE_CALLBACK_KEY", ""),
                        help="the platform's callback secret, or its API token [env JUDGE_CALLBACK_KEY]")
    parser.add_argument("--once", action="store_true", help="exit after the first verified callback")
    args = parser.parse_args(argv)
    if not args.key:
        parser.error("--key is required: the secret the judge signs this platform's callbacks with")
    key = args.key.encode()
    seen: set[str] = set()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            body = self.rfile.read(min(int(self.headers.get("Content-Length") or 0), 16 << 20))
            if not genuine(key, body, self.headers.get("X-Judge-Signature", "")):
                self.send_response(401)
                self.end_headers()
                print("refused a callback with a wrong signature", flush=True)
                return
            self.send_response(204)
            self.end_headers()
            sub = json.loads(body)
            verdict = sub.get("verdict") or {}
            again = " (again: delivery is at least once)" if sub.get("id") in seen else ""
            seen.add(sub.get("id"))
            print(f"verified callback: submission {sub.get('id')} {sub.get('state')}, verdict "
                  f"{verdict.get('status')} score {verdict.get('score')}{again}", flush=True)
            if args.once:
                self.server.done = True  # type: ignore[attr-defined]

        def log_message(self, *rest: object) -> None:
            pass

    server = ThreadingHTTPServer((args.host, args.port), Handler)
    server.done = False  # type: ignore[attr-defined]
    print(f"listening on http://{args.host}:{server.server_address[1]}/ (callback_url: any path)", flush=True)
    try:
        while not server.done:  # type: ignore[attr-defined]
            server.handle_request()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
