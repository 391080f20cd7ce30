"""Rejudging a problem's stored submissions after its bundle changed (DOMjudge's rejudging, on this store).

A rejudge is a row of ``judge_rejudges`` and one row of ``judge_rejudge_items`` per submission of the problem
that had a verdict when it was created (its old status and score kept there).  The runner grades the items
with the bundle as it is now on disk and stores each new verdict beside the old one, never over it: until it is
applied, nothing anyone sees changes.  ``GET /v1/rejudges/{id}`` shows DOMjudge's matrix (old status -> new
status -> count) and the submissions whose verdict changes.  Applying makes the new verdicts current in one
transaction per batch: the old verdict goes to ``judge_verdict_history``, the platform's callback is sent again,
and an LTI learner's score is posted again (AGS ``FullyGraded``).  A rejudge created with ``dry_run: false`` is
applied as soon as it is done; a dry run waits for apply or cancel.

Live submissions come first: the runner grades one item at a time and, before each, yields while any live
submission is queued or running (``Store.pending_count``), so a learner who submits during a rejudge of a
thousand submissions waits for at most the one item in progress (``bench/load_service.py --rejudge``).
Embedded servers run it on a thread of their own; Celery workers as a task that re-sends itself when it yields.

A rejudge belongs to its caller (``requested_by``): a platform token's covers only that token's submissions, a
teacher's only their course's, and nobody else sees or acts on it (404).  What one caller can make the store
hold is bounded: at most ``JUDGE_MAX_REJUDGE_ITEMS`` submissions a rejudge, one open rejudge per caller and
problem (while one is queued or running, another is refused; one that is done and was not applied is cancelled
by the next), and a cancelled rejudge's items are deleted (its row and counts stay).

Applying replaces each changed verdict (its ``verdict_version`` goes up by one, so a platform keeps the newest
per id), and a callback still in flight for the old verdict is let finish first (:meth:`Store.callback_result`).
LTI learners are not sent their old submissions' new scores: each affected learner's gradebook gets one score
computed from all their submissions with the activity's rule (:mod:`judge.service.lti.standing`, reached through
:mod:`judge.service.learner_hooks`).
"""

from __future__ import annotations

import json
import logging
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, insert, select, text, update

from judge.service import learner_hooks
from judge.service.db.schema import history, items, rejudges, submissions
from judge.service.store import DONE, Store

log = logging.getLogger("judge.service.rejudge")

QUEUED, RUNNING, FINISHED, APPLIED, CANCELLED = "queued", "running", "done", "applied", "cancelled"
ACTIVE = (QUEUED, RUNNING)
OPEN = (QUEUED, RUNNING, FINISHED, "applying")  # a caller's rejudge that is not applied or cancelled yet

APPLY_BATCH = 200


class RejudgeConflict(Exception):
    """A rejudge cannot do that in its state (apply before done, cancel after applied...)."""


class RejudgeOpen(RejudgeConflict):
    """The caller already has an open rejudge of this problem: apply or cancel it first."""

    def __init__(self, rid: str, problem: str, state: str) -> None:
        super().__init__(f"rejudge {rid} of {problem} is {state}: apply or cancel it before starting another")
        self.rid = rid


class RejudgeTooLarge(Exception):
    """More submissions than one rejudge may cover."""

    def __init__(self, count: int, limit: int) -> None:
        super().__init__(f"{count} submissions to rejudge, more than the {limit} one rejudge may cover "
                         f"(JUDGE_MAX_REJUDGE_ITEMS)")


@dataclass(frozen=True)
class Item:
    submission_id: str
    problem: str
    source: str


def _score(verdict_json: str | None) -> float | None:
    if not verdict_json:
        return None
    try:
        return float(json.loads(verdict_json).get("score", 0.0))
    except (ValueError, AttributeError):
        return None


class RejudgeStore:
    """The rejudge tables on the service's :class:`Store` engines."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def create(self, problem: str, dry_run: bool, digest: str | None, requested_by: str,
               only: list[str] | None = None, platform: str | None = None, max_items: int | None = None) -> str:
        """A new rejudge, owned by ``requested_by``, of the judged submissions of ``problem`` that are
        ``platform``'s (a token's own) or among ``only`` (a course's); its id.  Raises :class:`RejudgeOpen`
        when the caller has an open rejudge of the problem, :class:`RejudgeTooLarge` past ``max_items``."""
        if platform is None and only is None:
            raise ValueError("a rejudge covers a platform's submissions or a list of them, never everyone's")
        rid = uuid.uuid4().hex
        now = time.time()
        t = submissions
        query = select(t.c.id, t.c.status, t.c.verdict_json).where(t.c.problem == problem, t.c.state == DONE)
        if platform is not None:
            query = query.where(t.c.platform == platform)
        if only is not None:
            query = query.where(t.c.id.in_(only or [""]))
        with self.store._write() as conn:
            if self.store.dialect == "postgresql":  # one open rejudge per caller and problem, even when racing
                conn.execute(text("SELECT pg_advisory_xact_lock(7305202407)"))
            open_one = conn.execute(select(rejudges.c.id, rejudges.c.state).where(
                rejudges.c.requested_by == requested_by[:255], rejudges.c.problem == problem,
                rejudges.c.state.in_(OPEN))).first()
            if open_one is not None and open_one[1] != FINISHED:
                raise RejudgeOpen(open_one[0], problem, open_one[1])
            rows = conn.execute(query).all()
            if max_items is not None and len(rows) > max_items:
                raise RejudgeTooLarge(len(rows), max_items)
            if open_one is not None:  # a dry run done and never applied: this one replaces it
                _drop(conn, open_one[0], now)
                log.info("rejudge %s of %s: replaced by a new one, cancelled", open_one[0], problem)
            conn.execute(insert(rejudges).values(id=rid, problem=problem, dry_run=int(dry_run), state=QUEUED,
                                                 digest=digest, total=len(rows), created_at=now,
                                                 requested_by=requested_by[:255]))
            if rows:
                conn.execute(insert(items), [{"rejudge_id": rid, "submission_id": r[0], "old_status": r[1],
                                              "old_score": _score(r[2])} for r in rows])
        log.info("rejudge %s of %s: %d submissions (%s)", rid, problem, len(rows), "dry run" if dry_run else "apply")
        return rid

    def row(self, rid: str) -> dict | None:
        with self.store._read() as conn:
            row = conn.execute(select(rejudges).where(rejudges.c.id == rid)).mappings().first()
        return dict(row) if row is not None else None

    def owned_by(self, rid: str, caller: str) -> bool:
        """Whether ``caller`` (a platform's name, a course's tag) asked for this rejudge."""
        row = self.row(rid)
        return row is not None and row["requested_by"] == caller

    def active_ids(self) -> list[str]:
        with self.store._read() as conn:
            return [r[0] for r in conn.execute(select(rejudges.c.id).where(rejudges.c.state.in_(ACTIVE))
                                               .order_by(rejudges.c.created_at)).all()]

    def view(self, rid: str, changed_limit: int = 1000) -> dict | None:
        """What ``GET /v1/rejudges/{id}`` answers: state, progress, the matrix, the changed submissions."""
        row = self.row(rid)
        if row is None:
            return None
        i = items
        with self.store._read() as conn:
            cells = conn.execute(select(i.c.old_status, i.c.new_status, func.count())
                                 .where(i.c.rejudge_id == rid, i.c.new_status.is_not(None))
                                 .group_by(i.c.old_status, i.c.new_status)).all()
            changed = conn.execute(select(i.c.submission_id, i.c.old_status, i.c.new_status, i.c.old_score,
                                          i.c.new_score)
                                   .where(i.c.rejudge_id == rid, i.c.new_status.is_not(None),
                                          (i.c.new_status != i.c.old_status) | (i.c.new_score != i.c.old_score))
                                   .order_by(i.c.submission_id).limit(changed_limit)).all()
        matrix: dict[str, dict[str, int]] = {}
        graded = 0
        for old, new, count in cells:
            matrix.setdefault(old or "none", {})[new] = int(count)
            graded += int(count)
        return {"id": rid, "problem": row["problem"], "dry_run": bool(row["dry_run"]), "state": row["state"],
                "requested_by": row["requested_by"],
                "digest": row["digest"], "total": row["total"], "graded": graded, "matrix": matrix,
                "changed": [{"submission": c[0], "old": c[1], "new": c[2], "old_score": c[3], "new_score": c[4]}
                            for c in changed],
                "created_at": row["created_at"], "finished_at": row["finished_at"], "applied_at": row["applied_at"]}

    # -- the runner's side -----------------------------------------------------------------------------------
    def start(self, rid: str) -> bool:
        with self.store._write() as conn:
            return conn.execute(update(rejudges).where(rejudges.c.id == rid, rejudges.c.state.in_(ACTIVE))
                                .values(state=RUNNING, started_at=func.coalesce(rejudges.c.started_at,
                                                                                 time.time()))).rowcount == 1

    def todo(self, rid: str, limit: int) -> list[Item]:
        i, t = items, submissions
        with self.store._read() as conn:
            rows = conn.execute(select(i.c.submission_id, t.c.problem, t.c.source)
                                .join(t, t.c.id == i.c.submission_id)
                                .where(i.c.rejudge_id == rid, i.c.new_status.is_(None))
                                .order_by(i.c.submission_id).limit(limit)).all()
        return [Item(*r) for r in rows]

    def record(self, rid: str, submission_id: str, verdict_json: str, status: str, score: float) -> None:
        with self.store._write() as conn:
            conn.execute(update(items).where(items.c.rejudge_id == rid, items.c.submission_id == submission_id)
                         .values(new_status=status, new_score=score, new_verdict_json=verdict_json))

    def finish(self, rid: str) -> bool:
        with self.store._write() as conn:
            return conn.execute(update(rejudges).where(rejudges.c.id == rid, rejudges.c.state == RUNNING)
                                .values(state=FINISHED, finished_at=time.time())).rowcount == 1

    # -- apply and cancel ------------------------------------------------------------------------------------
    def cancel(self, rid: str) -> None:
        with self.store._write() as conn:
            done = _drop(conn, rid, time.time())
        if done != 1:
            raise RejudgeConflict(f"rejudge {rid} is {self._state(rid)}: only a queued, running or finished "
                                  f"one can be cancelled")

    def _state(self, rid: str) -> str:
        row = self.row(rid)
        return row["state"] if row else "unknown"

    def apply(self, rid: str) -> list[str]:
        """Make the new verdicts current (the old ones to history); the ids whose verdict changed.  Callbacks
        and LTI scores of those are due again."""
        with self.store._write() as conn:
            claimed = conn.execute(update(rejudges).where(rejudges.c.id == rid, rejudges.c.state == FINISHED)
                                   .values(state="applying")).rowcount
        if claimed != 1:
            raise RejudgeConflict(f"rejudge {rid} is {self._state(rid)}: only a finished one can be applied")
        i, t = items, submissions
        with self.store._read() as conn:
            changed = conn.execute(select(i.c.submission_id, i.c.new_status, i.c.new_verdict_json)
                                   .where(i.c.rejudge_id == rid, i.c.new_status.is_not(None),
                                          (i.c.new_status != i.c.old_status) | (i.c.new_score != i.c.old_score))
                                   .order_by(i.c.submission_id)).all()
        now = time.time()
        for start in range(0, len(changed), APPLY_BATCH):
            batch = changed[start:start + APPLY_BATCH]
            ids = [c[0] for c in batch]
            with self.store._write() as conn:
                old = conn.execute(select(t.c.id, t.c.verdict_json, t.c.status).where(t.c.id.in_(ids))).all()
                conn.execute(insert(history), [{"submission_id": o[0], "verdict_json": o[1], "status": o[2],
                                                "replaced_at": now, "rejudge_id": rid} for o in old])
                for sub_id, status, verdict_json in batch:
                    conn.execute(update(t).where(t.c.id == sub_id).values(
                        status=status, verdict_json=verdict_json, finished_at=now,
                        verdict_version=t.c.verdict_version + 1,
                        callback_state=_callback_again(t), callback_attempts=0,
                        callback_next_at=_after_delivery_in_flight(t, now)))
                _scores_again(conn, ids, now)
        with self.store._write() as conn:
            conn.execute(update(rejudges).where(rejudges.c.id == rid).values(state=APPLIED, applied_at=now))
        log.info("rejudge %s applied: %d verdicts changed", rid, len(changed))
        return [c[0] for c in changed]

    def finished_to_apply(self) -> list[str]:
        """Finished rejudges that are not dry runs, oldest first: applied as soon as done."""
        with self.store._read() as conn:
            return [r[0] for r in conn.execute(select(rejudges.c.id).where(rejudges.c.state == FINISHED,
                                                                             rejudges.c.dry_run == 0)
                                               .order_by(rejudges.c.created_at)).all()]

    def history_of(self, submission_id: str) -> list[dict]:
        with self.store._read() as conn:
            rows = conn.execute(select(history).where(history.c.submission_id == submission_id)
                                .order_by(history.c.id)).mappings().all()
        return [dict(r) for r in rows]


def _drop(conn, rid: str, now: float) -> int:  # noqa: ANN001
    """Cancel a rejudge that is not applied and delete its items (nothing will read its new verdicts);
    1 when it was cancelled here."""
    from sqlalchemy import delete

    done = conn.execute(update(rejudges).where(rejudges.c.id == rid, rejudges.c.state.in_(ACTIVE + (FINISHED,)))
                        .values(state=CANCELLED, finished_at=func.coalesce(rejudges.c.finished_at, now))).rowcount
    if done == 1:
        conn.execute(delete(items).where(items.c.rejudge_id == rid))
    return done


def _callback_again(t):  # noqa: ANN001, ANN202 - a SQL expression
    from sqlalchemy import case

    return case((t.c.callback_url.is_not(None), "pending"), else_="none")


def _after_delivery_in_flight(t, now: float):  # noqa: ANN001, ANN202 - a SQL expression
    """When the new verdict's callback is due: now, or when the delivery in flight for the old one ends (its
    lease; :meth:`Store.callback_result` makes it due at once when that delivery ends sooner), so a platform
    gets the old verdict before the new one, never after."""
    from sqlalchemy import case

    return case((t.c.callback_version.is_not(None) & (t.c.callback_next_at > now), t.c.callback_next_at),
                else_=now)


def _scores_again(conn, submission_ids: list[str], now: float) -> None:  # noqa: ANN001
    """One new score for each LTI learner whose submissions changed: their standing under the new bundle (the
    learner side's hook, :mod:`judge.service.learner_hooks`; none without the learner side)."""
    hooks = learner_hooks.registered()
    if hooks is not None:
        hooks.verdicts_replaced(conn, submission_ids, now)


# -- the runner --------------------------------------------------------------------------------------------------
def run(rs: RejudgeStore, judge: Any, rid: str, live_busy: Callable[[], bool], batch: int = 16,
        apply_when_done: bool = True) -> str:
    """Grade the rejudge's items one by one until done ("done"), until live work waits ("yielded"), or until
    it was cancelled ("cancelled").  Safe to run twice at once: an item graded twice is recorded twice, the
    same verdict.  ``apply_when_done`` False: a rejudge that is not a dry run is left finished for the API to
    apply (Celery workers, whose database role may not write what applying writes)."""
    from judge.service.worker import internal_error

    row = rs.row(rid)
    if row is None or row["state"] not in ACTIVE or not rs.start(rid):
        return "cancelled" if row is not None and row["state"] == CANCELLED else "done"
    while True:
        todo = rs.todo(rid, batch)
        if not todo:
            if rs.finish(rid) and not row["dry_run"] and apply_when_done:
                rs.apply(rid)
            return "done"
        for item in todo:
            if live_busy():
                return "yielded"
            if rs._state(rid) == CANCELLED:
                return "cancelled"
            try:
                verdict = judge.grade(item.source, item.problem)
            except Exception as exc:  # noqa: BLE001 - a broken bundle is a verdict too, as in live grading
                log.exception("rejudge %s: submission %s failed", rid, item.submission_id)
                verdict = internal_error(item.problem, f"the judge failed: {type(exc).__name__}: {exc}")
            rs.record(rid, item.submission_id, verdict.model_dump_json(), verdict.status.value, verdict.score)
