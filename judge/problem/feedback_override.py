"""A teacher's override of a problem's feedback policy for one activity, from text: an LTI activity's custom
parameters (``feedback_hidden=status``, ``feedback_probes=5/1h``, ...) or a ``/learn`` course's setting
(``JUDGE_LEARN_FEEDBACK``).  The bundle's ``feedback:`` section is the default; the override replaces the
fields it names, in either direction (stricter or more generous): the teacher of the activity decides what
their learners see, as they decide its due date.  Errors name the key, so a launch or a start refuses with
the reason instead of silently falling back.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from pydantic import ValidationError

from judge.problem.feedback_policy import FeedbackLevel, FeedbackPolicy, ProbeLimit

#: the fields a teacher may override, as they are named after the prefix (``feedback_`` in custom parameters)
KEYS = ("hidden", "hidden_ids", "due", "after_due", "probes")
_TRUE, _FALSE = {"true", "yes", "1", "on"}, {"false", "no", "0", "off"}
_OFF = {"off", "none", "no"}


class OverrideError(ValueError):
    """An override that cannot apply: the message names the key and says what it accepts."""


def _level(key: str, value: str) -> str:
    try:
        return FeedbackLevel(value.strip().lower()).value
    except ValueError:
        raise OverrideError(f"{key}: {value!r} is not a level: one of "
                            f"{', '.join(lv.value for lv in FeedbackLevel)}") from None


def _due(key: str, value: str) -> str:
    try:
        when = datetime.fromisoformat(value.strip())
    except ValueError:
        raise OverrideError(f"{key}: {value!r} is not an ISO 8601 date and time (e.g. 2026-12-20T23:59Z)") from None
    return (when if when.tzinfo is not None else when.replace(tzinfo=UTC)).isoformat()


def parse_override(pairs: Mapping[str, str], prefix: str = "") -> dict[str, Any]:
    """The fields ``pairs`` set (keys ``prefix + field``; other keys are ignored), in the policy's JSON shape.
    ``probes=off`` lifts the bundle's probing limit."""
    out: dict[str, Any] = {}
    for field in KEYS:
        raw = pairs.get(prefix + field)
        if raw is None or not str(raw).strip():
            continue
        key, value = prefix + field, str(raw).strip()
        if field in ("hidden", "after_due"):
            out[field] = _level(key, value)
        elif field == "hidden_ids":
            if value.lower() not in _TRUE | _FALSE:
                raise OverrideError(f"{key}: {value!r} is not true or false")
            out[field] = value.lower() in _TRUE
        elif field == "due":
            out[field] = _due(key, value)
        elif value.lower() in _OFF:
            out[field] = None
        else:
            try:
                out[field] = ProbeLimit.parse(value).model_dump()
            except (ValueError, ValidationError) as exc:
                raise OverrideError(f"{key}: {_reason(exc)}") from None
    return out


def apply_override(policy: FeedbackPolicy, override: Mapping[str, Any] | None) -> FeedbackPolicy:
    """``policy`` with the override's fields.  A bundle's ``after_due`` below the override's ``hidden`` level is
    raised to it (a due date only reveals more); any other contradiction is an :class:`OverrideError`."""
    if not override:
        return policy
    merged = {**policy.model_dump(mode="json"), **override}
    if merged.get("after_due") is not None and "after_due" not in override and \
            FeedbackLevel(merged["after_due"]).rank < FeedbackLevel(merged["hidden"]).rank:
        merged["after_due"] = merged["hidden"]
    try:
        return FeedbackPolicy.model_validate(merged)
    except ValidationError as exc:
        raise OverrideError(_reason(exc)) from None


def parse_setting(text: str, where: str) -> dict[str, Any]:
    """A ``/learn`` course's override as written in a setting: ``hidden=status;probes=5/1h;...``."""
    pairs: dict[str, str] = {}
    for item in (p.strip() for p in text.split(";")):
        if not item:
            continue
        key, sep, value = item.partition("=")
        if not sep or key.strip() not in KEYS:
            raise OverrideError(f"{where}: {item!r} is not KEY=VALUE with KEY one of {', '.join(KEYS)}")
        pairs[key.strip()] = value
    return parse_override(pairs)


def _reason(exc: ValueError | ValidationError) -> str:
    if isinstance(exc, ValidationError):
        return "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'feedback'}: {e['msg'].removeprefix('Value error, ')}"
                         for e in exc.errors())
    return str(exc)
