"""What a learner may see of a verdict: nothing that a hidden case's inputs could have shaped.

The platform API returns the whole verdict; the learner page gets this view:

- hidden cases keep their id, function, status, time and the share of wrong values, but no message (an exception
  message is the learner's own text and may hold the hidden arguments), no shapes, no values, no output;
- stdout/stderr are what loading printed plus what each public case printed (per-call capture);
  output that could not be split is not shown;
- the verdict's message is rebuilt from the first failing case on the same terms.
"""

from __future__ import annotations

import re
from typing import Any

_EXCEPTION = re.compile(r"^(?:while loading your file: )?([A-Za-z_][A-Za-z0-9_.]{0,80})\b")
_HIDDEN_WORDS = {
    "wrong_answer": "wrong answer",
    "runtime_error": "raised an exception",
    "time_limit_exceeded": "time limit exceeded",
    "memory_limit_exceeded": "memory limit exceeded",
    "skipped": "not run: an earlier case ended the process",
    "internal_error": "internal error",
}


def _hidden_message(case: dict) -> str:
    status = case.get("status", "")
    words = _HIDDEN_WORDS.get(status, status.replace("_", " "))
    if status == "runtime_error":
        match = _EXCEPTION.match(case.get("message", ""))
        if match:
            words = f"raised {match.group(1)}"
    facts = case.get("facts") or {}
    if facts.get("mismatched") and facts.get("total"):  # a share, not counts: counts tell the sizes
        words += f": {max(1, round(100 * facts['mismatched'] / facts['total']))}% of the values out of tolerance"
    return words


def learner_case(case: dict) -> dict:
    if case.get("visibility") == "public":
        return case
    # no shapes: a hidden case's output shape gives its arguments away (max_len, d_model, ...)
    kept = {k: case.get(k) for k in ("id", "function", "visibility", "status", "time_ms", "weight",
                                      "expected_dtypes", "got_dtype", "input_changed")}
    kept["message"] = _hidden_message(case)
    kept["facts"] = None
    kept["output"] = None
    return kept


def _printed(verdict: dict, stream: str) -> dict[str, Any]:
    pieces, truncated, unknown = [], False, False
    load = verdict.get("load_output")
    if load:
        pieces.append(load.get(stream, ""))
        truncated |= bool(load.get("truncated"))
    elif verdict.get("cases"):
        unknown = True
    for case in verdict.get("cases", []):
        if case.get("visibility") != "public":
            continue
        output = case.get("output")
        if output is None:
            unknown = unknown or case.get("status") != "skipped"
            continue
        pieces.append(output.get(stream, ""))
        truncated |= bool(output.get("truncated"))
    text = "".join(pieces)
    return {"text": text, "bytes": len(text.encode()), "truncated": truncated or unknown}


def learner_verdict(verdict: dict | None) -> dict | None:
    if verdict is None:
        return None
    view = dict(verdict)
    view["cases"] = [learner_case(c) for c in verdict.get("cases", [])]
    view["stdout"] = _printed(verdict, "stdout")
    view["stderr"] = _printed(verdict, "stderr")
    view["load_output"] = None
    failing = next((c for c in view["cases"] if c.get("status") != "accepted"), None)
    if failing is not None and verdict.get("cases"):
        label = failing["id"] if failing.get("visibility") == "public" else f"{failing['id']} (hidden)"
        view["message"] = f"first failing case {label}: {failing.get('message', '')}"
    return view
