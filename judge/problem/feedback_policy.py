"""What a learner may see of hidden cases, and from when: the bundle's default, which a teacher may override.

One model for every door (the learner page, ``check()``, the packaged runners, the ``--format`` exports): each
renders the learner's verdict through :func:`judge.formats.learner.learner_view`, which reads this policy.  It
lives with the bundle's models because problem.yaml names the default (a ``feedback:`` section), so a problem
needs no code change to be stricter or more generous.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import UTC, datetime
from enum import Enum

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

_SPAN = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(s|m|h|d)?\s*$")
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


class FeedbackLevel(str, Enum):
    """How much of the hidden cases a learner sees, least first (the order is the enum's)."""

    SCORE = "score"          # nothing but the score: hidden cases are not listed one by one
    STATUS = "status"        # each hidden case's status, nothing else (no time, no share of wrong values)
    DIAGNOSIS = "diagnosis"  # also time, share of wrong values, exception class, failure pattern and named mistake
    FULL = "full"            # the whole verdict, as the teacher sees it

    @property
    def rank(self) -> int:
        return list(FeedbackLevel).index(self)


def span_seconds(text: str | float) -> float:
    """``90s``, ``30m``, ``1h``, ``2d`` or a number of seconds, as seconds (ValueError naming the text)."""
    if isinstance(text, int | float) and not isinstance(text, bool):
        seconds = float(text)
    else:
        match = _SPAN.match(str(text))
        if match is None:
            raise ValueError(f"{text!r} is not a time span: write e.g. 90s, 30m, 1h or 2d")
        seconds = float(match.group(1)) * _UNITS[match.group(2) or "s"]
    if not 0 < seconds <= 366 * 86400:
        raise ValueError(f"{text!r}: a window is more than 0 seconds and at most a year")
    return seconds


class ProbeLimit(BaseModel):
    """At most ``hidden_feedback`` submissions per ``window`` show a learner anything of the hidden cases.

    Why every submission counts, shown or not: the limit is about probing (submitting variants to read the
    hidden cases' statuses), and counting only the shown ones would let a script keep one request in flight at
    each window's edge.  Counting from stored creation times alone keeps each submission's view a fixed
    function of what is stored: a reload, another tab or a later submission never changes what an earlier
    one showed.  A learner who keeps submitting past the limit pushes the time more comes back."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    hidden_feedback: int = Field(ge=1, le=10_000, description="submissions with hidden feedback per window")
    window: float = Field(description="the window: 90s, 30m, 1h, 2d, or seconds")

    @field_validator("window", mode="before")
    @classmethod
    def _window(cls, value: object) -> float:
        return span_seconds(value)  # type: ignore[arg-type]  # str or number; anything else fails in there

    @classmethod
    def parse(cls, text: str) -> ProbeLimit:
        """The short form ``N/WINDOW`` (``5/1h``) of custom parameters and settings."""
        count, sep, window = text.partition("/")
        if not sep or not count.strip().isdigit():
            raise ValueError(f"{text!r} is not N/WINDOW (e.g. 5/1h: five submissions with hidden feedback "
                             "an hour)")
        return cls(hidden_feedback=int(count), window=window.strip())

    def back_at(self, earlier: Sequence[float], at: float) -> float | None:
        """None when a submission made at ``at`` shows hidden feedback; else when a new submission would again
        (the epoch second the oldest counted submission leaves the window).  ``earlier``: creation times of the
        same learner's earlier submissions of the problem (any order; those outside the window are ignored)."""
        recent = sorted(t for t in earlier if at - self.window < t <= at)
        if len(recent) < self.hidden_feedback:
            return None
        counted = (recent + [at])[-self.hidden_feedback:]  # the N most recent, this one included
        return counted[0] + self.window


class FeedbackPolicy(BaseModel):
    """The ``feedback:`` section of problem.yaml.  Absent: ``diagnosis`` with anonymous hidden ids, which is what
    learners saw before the policy existed, minus the ids (authors write ids that carry the arguments)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    hidden: FeedbackLevel = Field(FeedbackLevel.DIAGNOSIS, description="what a learner sees of hidden cases")
    hidden_ids: bool = Field(False, description="show hidden cases' own ids; false: 'hidden case 7 of 18'")
    due: datetime | None = Field(None, description="when ``after_due`` starts to apply (ISO 8601; UTC if no zone)")
    after_due: FeedbackLevel | None = Field(None, description="the level from ``due`` on")
    probes: ProbeLimit | None = Field(None, description="at most N submissions with hidden feedback per window "
                                                        "and learner; beyond it, the score and public cases")

    @model_validator(mode="after")
    def _due_pairs(self) -> FeedbackPolicy:
        if (self.due is None) != (self.after_due is None):
            raise ValueError("due and after_due go together: give both or neither")
        if self.after_due is not None and self.after_due.rank < self.hidden.rank:
            raise ValueError(f"after_due ({self.after_due.value}) shows less than before the due date "
                             f"({self.hidden.value}): a due date only reveals more")
        return self

    def past_due(self, now: datetime | None = None) -> bool:
        """Whether ``after_due`` applies at ``now``: from the due date on, the probing limit no longer does."""
        if self.due is None or self.after_due is None:
            return False
        return _aware(now) >= (self.due if self.due.tzinfo is not None else self.due.replace(tzinfo=UTC))

    def level(self, now: datetime | None = None) -> FeedbackLevel:
        """The level that applies at ``now`` (default: the current time)."""
        if self.due is None or self.after_due is None:
            return self.hidden
        due = self.due if self.due.tzinfo is not None else self.due.replace(tzinfo=UTC)
        now = now or datetime.now(UTC)
        now = now if now.tzinfo is not None else now.replace(tzinfo=UTC)
        return self.after_due if now >= due else self.hidden


def _aware(now: datetime | None) -> datetime:
    now = now or datetime.now(UTC)
    return now if now.tzinfo is not None else now.replace(tzinfo=UTC)
