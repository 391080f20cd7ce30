"""What a learner may see of hidden cases, and from when: the bundle's default, which a teacher may override.

One model for every door (the learner page, ``check()``, the packaged runners, the ``--format`` exports): each
renders the learner's verdict through :func:`judge.formats.learner.learner_view`, which reads this policy.  It
lives with the bundle's models because problem.yaml names the default (a ``feedback:`` section), so a problem
needs no code change to be stricter or more generous.
"""

from __future__ import annotations

from datetime import UTC, datetime
from enum import Enum

from pydantic import BaseModel, ConfigDict, Field, model_validator


class FeedbackLevel(str, Enum):
    """How much of the hidden cases a learner sees, least first (the order is the enum's)."""

    SCORE = "score"          # nothing but the score: hidden cases are not listed one by one
    STATUS = "status"        # each hidden case's status, nothing else (no time, no share of wrong values)
    DIAGNOSIS = "diagnosis"  # also time, share of wrong values, exception class, failure pattern and named mistake
    FULL = "full"            # the whole verdict, as the teacher sees it

    @property
    def rank(self) -> int:
        return list(FeedbackLevel).index(self)


class FeedbackPolicy(BaseModel):
    """The ``feedback:`` section of problem.yaml.  Absent: ``diagnosis`` with anonymous hidden ids, which is what
    learners saw before the policy existed, minus the ids (authors write ids that carry the arguments)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    hidden: FeedbackLevel = Field(FeedbackLevel.DIAGNOSIS, description="what a learner sees of hidden cases")
    hidden_ids: bool = Field(False, description="show hidden cases' own ids; false: 'hidden case 7 of 18'")
    due: datetime | None = Field(None, description="when ``after_due`` starts to apply (ISO 8601; UTC if no zone)")
    after_due: FeedbackLevel | None = Field(None, description="the level from ``due`` on")

    @model_validator(mode="after")
    def _due_pairs(self) -> FeedbackPolicy:
        if (self.due is None) != (self.after_due is None):
            raise ValueError("due and after_due go together: give both or neither")
        if self.after_due is not None and self.after_due.rank < self.hidden.rank:
            raise ValueError(f"after_due ({self.after_due.value}) shows less than before the due date "
                             f"({self.hidden.value}): a due date only reveals more")
        return self

    def level(self, now: datetime | None = None) -> FeedbackLevel:
        """The level that applies at ``now`` (default: the current time)."""
        if self.due is None or self.after_due is None:
            return self.hidden
        due = self.due if self.due.tzinfo is not None else self.due.replace(tzinfo=UTC)
        now = now or datetime.now(UTC)
        now = now if now.tzinfo is not None else now.replace(tzinfo=UTC)
        return self.after_due if now >= due else self.hidden
