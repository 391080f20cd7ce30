"""An LTI learner's standing in an activity: one score computed from all their submissions, never one
submission's score posted as if it were the newest.

A platform keeps the Score with the latest timestamp.  Posting each submission's own score as it is judged
made the gradebook show the last *judged* submission, and a rejudge that re-posted an old wrong submission's
new score with a fresh timestamp replaced a learner's later full marks.  So every ``FullyGraded`` post carries
the learner's standing, computed when it is sent (and stamped then), from every judged submission the learner
made for the problem in that course, with the activity's rule:

- ``best`` (the default, ``JUDGE_SCORE_RULE``): the highest score; a later, worse try never lowers a grade;
- ``latest``: the newest submission's score (by when it was submitted, not when it was judged).

An activity chooses with the LTI custom parameter ``score_rule=best`` or ``score_rule=latest`` (set where the
platform sets ``problem``); the launch stores it on the session.  Two activities of one course with the same
problem share a learner's submissions, hence their standing.

After a rejudge is applied, each affected learner gets one post per gradebook column (line item) they launched
from: their standing under the new verdicts (:func:`standings_due`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from sqlalchemy import insert, inspect, select
from sqlalchemy.engine import Connection

from judge.service.db.schema import owned, scores, sessions, submissions
from judge.service.settings import SCORE_RULES
from judge.service.store import DONE, Store


@dataclass(frozen=True)
class Standing:
    """The score a learner's gradebook shows, and the submission it comes from."""

    score: float
    submission_id: str
    verdict: dict | None
    submissions: int  #: how many judged submissions it was computed from
    rule: str


def _score(verdict: dict | None) -> float:
    try:
        return float((verdict or {}).get("score", 0.0))
    except (TypeError, ValueError):
        return 0.0


def rule_of(session_rule: str | None, default: str) -> str:
    """The activity's rule if its launch named a known one, else the server's default."""
    return session_rule if session_rule in SCORE_RULES else default


def standing(store: Store, learner: str, problem: str, rule: str) -> Standing | None:
    """The learner's standing for ``problem`` under ``rule``; None before any of their submissions is judged."""
    query = (select(submissions.c.id, submissions.c.verdict_json)
             .join(owned, owned.c.submission_id == submissions.c.id)
             .where(owned.c.learner == learner, owned.c.problem == problem, submissions.c.state == DONE)
             .order_by(owned.c.created_at, submissions.c.id))
    with store._read() as conn:
        rows = conn.execute(query).all()
    if not rows:
        return None
    judged = [(sub_id, json.loads(text) if text else None) for sub_id, text in rows]
    # best: among equal scores the newest, whose comment is the freshest
    chosen = judged[-1] if rule == "latest" else max(reversed(judged), key=lambda item: _score(item[1]))
    return Standing(score=_score(chosen[1]), submission_id=chosen[0], verdict=chosen[1], submissions=len(judged),
                    rule=rule)


def _lineitem(ags_json: str | None) -> str | None:
    try:
        return (json.loads(ags_json) or {}).get("lineitem") if ags_json else None
    except (ValueError, AttributeError):
        return None


def standings_due(conn: Connection, submission_ids: list[str], now: float) -> int:
    """In the rejudge's transaction: one score post due for each learner whose submissions among these had
    gradebook scores, per line item they launched from (their newest session with it).  A post not yet tried
    for that session computes the standing when sent, so none is added beside it.  Returns how many."""
    if not submission_ids or not inspect(conn).has_table(scores.name):  # a server without the learner side
        return 0
    affected = conn.execute(select(owned.c.learner, owned.c.problem).distinct()
                            .join(scores, scores.c.submission_id == owned.c.submission_id)
                            .where(owned.c.submission_id.in_(submission_ids), scores.c.kind == "final")).all()
    rows: list[dict[str, Any]] = []
    for learner, problem in affected:
        newest = conn.execute(select(owned.c.submission_id).where(owned.c.learner == learner,
                                                                   owned.c.problem == problem)
                              .order_by(owned.c.created_at.desc()).limit(1)).scalar_one()
        launched = conn.execute(select(sessions.c.handle, sessions.c.ags_json)
                                .where(sessions.c.learner == learner, sessions.c.problem == problem,
                                       sessions.c.ags_json.is_not(None), sessions.c.user_id.is_not(None))
                                .order_by(sessions.c.created_at.desc())).all()
        per_column: dict[str, str] = {}
        for handle, ags_json in launched:
            per_column.setdefault(_lineitem(ags_json) or handle, handle)
        for handle in per_column.values():
            untried = conn.execute(select(scores.c.id).where(
                scores.c.session == handle, scores.c.kind == "final", scores.c.state == "due",
                scores.c.attempts == 0).limit(1)).first()
            if untried is None:
                rows.append({"submission_id": newest, "session": handle, "kind": "final", "state": "due",
                             "timestamp": now, "attempts": 0, "next_at": now})
    if rows:
        conn.execute(insert(scores), rows)
    return len(rows)
