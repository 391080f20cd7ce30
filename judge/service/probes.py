"""The probing limit on the service: which of a learner's submissions show hidden feedback.

A learner is who a door knows: the LTI or ``/learn`` learner key (``judge_lti_owned.learner``), or, on the
platform API, the ``metadata.learner`` a platform gives (none given: nothing to count, no limit).  Counted
are that learner's submissions of the same problem, by their stored creation time, each one shown or not
(:class:`judge.problem.feedback_policy.ProbeLimit` says why); so a submission's view depends on stored rows
alone, and reloading it, or reading it from another tab, shows exactly what it showed before.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime

from sqlalchemy import select

from judge.problem.feedback_policy import FeedbackPolicy
from judge.service.db.schema import owned, submissions
from judge.service.store import Store, StoredSubmission

#: (created_at, id) of a learner's submissions of one problem
Times = list[tuple[float, str]]


def needs_count(policy: FeedbackPolicy, now: datetime | None = None) -> bool:
    """Whether views under ``policy`` depend on counting (a limit, before any due date)."""
    return policy.probes is not None and not policy.past_due(now)


def span(policy: FeedbackPolicy, rows: list[StoredSubmission]) -> tuple[float, float]:
    """The creation times to read to count for ``rows``: from a window before the first to the last."""
    assert policy.probes is not None
    return min(r.created_at for r in rows) - policy.probes.window, max(r.created_at for r in rows)


def lti_times(store: Store, learner: str, problem: str, since: float, until: float) -> Times:
    """A learner's submissions (learner page, LTI or ``/learn``) of ``problem`` created in ``[since, until]``."""
    query = (select(submissions.c.created_at, submissions.c.id)
             .join(owned, owned.c.submission_id == submissions.c.id)
             .where(owned.c.learner == learner, owned.c.problem == problem,
                    submissions.c.created_at >= since, submissions.c.created_at <= until))
    with store._read() as conn:
        return [(float(t), str(i)) for t, i in conn.execute(query).all()]


def platform_times(store: Store, platform: str, problem: str, learner: str, since: float, until: float) -> Times:
    """A platform's submissions of ``problem`` whose ``metadata.learner`` is ``learner``, created in the span.
    Read within one window only, so a platform with many submissions pays for one window's worth."""
    query = (select(submissions.c.created_at, submissions.c.id, submissions.c.metadata_json)
             .where(submissions.c.platform == platform, submissions.c.problem == problem,
                    submissions.c.created_at >= since, submissions.c.created_at <= until))
    with store._read() as conn:
        rows = conn.execute(query).all()
    return [(float(t), str(i)) for t, i, meta in rows if learner_of(meta) == learner]


def learner_of(metadata_json: str | None) -> str | None:
    """The ``metadata.learner`` a platform gave, as text (None: none given)."""
    try:
        meta = json.loads(metadata_json) if metadata_json else None
    except ValueError:
        return None
    value = meta.get("learner") if isinstance(meta, dict) else None
    return str(value) if value not in (None, "") else None


def back_at(policy: FeedbackPolicy, times: Times, row: StoredSubmission) -> datetime | None:
    """None when ``row`` shows hidden feedback under ``policy``; else when a new submission would again."""
    if policy.probes is None:
        return None
    earlier = [t for t, i in times if (t, i) < (row.created_at, row.id)]
    at = policy.probes.back_at(earlier, row.created_at)
    return datetime.fromtimestamp(at, tz=UTC) if at is not None else None


def limited_count(policy: FeedbackPolicy, rows: list[StoredSubmission]) -> int:
    """How many of one learner's ``rows`` (all their submissions of the problem) the limit withheld."""
    if not needs_count(policy) or not rows:
        return 0
    times = [(r.created_at, r.id) for r in rows]
    return sum(back_at(policy, times, r) is not None for r in rows)
