"""The command line's side of ``/v1/rejudges`` (``judge rejudge``): the standard library's HTTP only, so the
command needs nothing the judge does not already have."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from collections.abc import Callable


class RejudgeClientError(Exception):
    """The service refused or could not be reached; the message says which and why."""


class RejudgeClient:
    def __init__(self, url: str, token: str, timeout: float = 30) -> None:
        self.url, self.token, self.timeout = url.rstrip("/"), token, timeout

    def _call(self, method: str, path: str, body: dict | None = None) -> dict:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(f"{self.url}{path}", data=data, method=method, headers={
            "Authorization": f"Bearer {self.token}", "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as answer:
                return json.loads(answer.read())
        except urllib.error.HTTPError as exc:
            try:
                error = json.loads(exc.read()).get("message", "")
            except ValueError:
                error = ""
            raise RejudgeClientError(f"{method} {path}: HTTP {exc.code} {error}".rstrip()) from None
        except (urllib.error.URLError, OSError) as exc:
            raise RejudgeClientError(f"cannot reach the service at {self.url}: {exc}") from None

    def create(self, problem: str, dry_run: bool) -> dict:
        return self._call("POST", "/v1/rejudges", {"problem": problem, "dry_run": dry_run})

    def get(self, rid: str) -> dict:
        return self._call("GET", f"/v1/rejudges/{rid}")

    def apply(self, rid: str) -> dict:
        return self._call("POST", f"/v1/rejudges/{rid}/apply")

    def cancel(self, rid: str) -> dict:
        return self._call("POST", f"/v1/rejudges/{rid}/cancel")

    def wait(self, rid: str, say: Callable[[str], None] = lambda _: None, poll: float = 1.0) -> dict:
        last = -1
        while True:
            view = self.get(rid)
            if view["graded"] != last:
                say(f"rejudge {rid}: {view['state']}, {view['graded']} of {view['total']} graded")
                last = view["graded"]
            if view["state"] not in ("queued", "running"):
                return view
            time.sleep(poll)


def describe(view: dict) -> str:
    """The matrix (rows: old status, columns: new status) and the changed submissions, as text."""
    news = sorted({new for row in view["matrix"].values() for new in row})
    lines = [f"rejudge {view['id']} of {view['problem']}: {view['state']}"
             f"{' (dry run)' if view['dry_run'] else ''}, {view['graded']} of {view['total']} graded"]
    if news:
        width = max(len(s) for s in list(view["matrix"]) + news + ["old \\ new"]) + 2
        lines.append("old \\ new".ljust(width) + "".join(n.ljust(width) for n in news))
        for old, row in sorted(view["matrix"].items()):
            lines.append(old.ljust(width) + "".join(str(row.get(n, "")).ljust(width) for n in news))
    changed = view.get("changed") or []
    lines.append(f"{len(changed)} submission{'s' if len(changed) != 1 else ''} change")
    lines += [f"  {c['submission']}: {c['old']} -> {c['new']}" for c in changed[:50]]
    if view["state"] == "done" and view["dry_run"]:
        lines.append(f"apply with: judge rejudge --apply {view['id']}")
    return "\n".join(lines)
