"""What the learner side keeps in the service's database, beside the submissions table.

- ``judge_lti_kv``: pylti1p3's launch data (nonces, state, launch claims) with an expiry; a nonce is
  consumed by deleting its row, so a replayed id_token fails even from the same browser.
- ``judge_lti_sessions``: one row per launch (or access-code sign-in): the learner, the problem, the
  CSRF token and the AGS endpoint.  The cookie holds a secret whose SHA-256 is stored, never the secret.
- ``judge_lti_owned``: which learner made which submission (a learner sees only their own).
- ``judge_lti_scores``: AGS score posts, retried with backoff by :mod:`judge.service.lti.passback`.
- ``judge_lti_pictures``: the PNGs a learner's verdict names (failing public cases), shown on the page.
- ``judge_learn_learners``: who joined a course at ``/learn`` (no LMS): a random id, the name they typed,
  the hash of their personal code (the code itself lives only in their browser's cookie and their notes).
- ``judge_lti_staff``: which sessions are a teacher's, and their course (issuer, client id, deployment,
  context, the roster's NRPS URL): the class view (:mod:`judge.service.lti.class_view`) reads only that course.

Everything is in the same database as the submissions, so several servers share it; the tables themselves are
defined with all the service's others in :mod:`judge.service.db.schema`.
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlalchemy import and_, delete, insert, select, update
from sqlalchemy.exc import IntegrityError

from judge.service.db.schema import kv, learn_learners, owned, pictures, scores, sessions, staff, submissions
from judge.service.store import DONE, Store, StoredSubmission

if TYPE_CHECKING:
    from collections.abc import Mapping

SESSION_SECONDS = 8 * 3600
PICTURE_MAX_BYTES = 2 << 20
INDEX = "index.json"


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass(frozen=True)
class ScoreRow:
    """One score post to the gradebook (a row of ``judge_lti_scores``)."""

    id: int
    submission_id: str
    session: str
    kind: str  #: pending | final
    state: str  #: waiting (final, not judged) | due | sent | failed
    timestamp: float | None
    attempts: int
    next_at: float | None
    error: str | None

    @classmethod
    def of(cls, row: Mapping) -> ScoreRow:
        return cls(**{f: row[f] for f in ("id", "submission_id", "session", "kind", "state", "timestamp",
                                          "attempts", "next_at", "error")})


@dataclass(frozen=True)
class LearnLearner:
    """A learner who joined a course at ``/learn`` (a row of ``judge_learn_learners``)."""

    id: str
    course: str
    name: str

    @property
    def key(self) -> str:
        """The key their submissions are filed under (``judge_lti_owned.learner``)."""
        return learn_key(self.course, self.id)


def learn_key(course: str, learner_id: str) -> str:
    return digest(f"learn\n{course}\n{learner_id}")


@dataclass
class LearnerSession:
    handle: str
    learner: str
    problem: str
    csrf: str
    user_id: str | None
    name: str | None
    issuer: str | None
    client_id: str | None
    ags: dict | None
    tenant: str | None = None  #: the LTI deployment's course, or the /learn course: a tenant of the queue
    score_rule: str | None = None  #: best | latest, from the activity's custom parameter (None: the default)
    feedback: dict | None = None  #: the activity's feedback policy override (None: the bundle's own policy)
    locale: str | None = None  #: the launch's language, one of the judge's (None: the browser's Accept-Language)


class LtiStore:
    """The learner side's tables, on the service's :class:`Store` engines."""

    def __init__(self, store: Store) -> None:
        self.store = store

    # -- pylti1p3's key/value data -------------------------------------------------
    def kv_set(self, key: str, value: Any, seconds: float) -> None:
        now = time.time()
        with self.store._write() as conn:
            conn.execute(delete(kv).where(kv.c.key == key))
            conn.execute(insert(kv).values(key=key, value_json=json.dumps(value), expires_at=now + seconds))
            if secrets.randbelow(50) == 0:
                conn.execute(delete(kv).where(kv.c.expires_at < now))

    def kv_get(self, key: str) -> Any:
        with self.store._read() as conn:
            row = conn.execute(select(kv.c.value_json).where(kv.c.key == key, kv.c.expires_at >= time.time())).first()
        return json.loads(row[0]) if row is not None else None

    def kv_claim(self, key: str, value: Any, until: float) -> bool:
        """Write the key unless an unexpired row holds it: True for the one caller that wrote it (single use)."""
        now = time.time()
        try:
            with self.store._write() as conn:
                conn.execute(delete(kv).where(kv.c.key == key, kv.c.expires_at < now))
                conn.execute(insert(kv).values(key=key, value_json=json.dumps(value), expires_at=until))
        except IntegrityError:  # used already (or by a concurrent launch with the same token)
            return False
        return True

    def kv_take(self, key: str) -> bool:
        """Delete the key; True only for the one caller that found it unexpired (single use)."""
        with self.store._write() as conn:
            result = conn.execute(delete(kv).where(kv.c.key == key, kv.c.expires_at >= time.time()))
            return result.rowcount == 1

    # -- sessions -------------------------------------------------------------------
    def open_session(self, learner: str, problem: str, user_id: str | None = None, name: str | None = None,
                     issuer: str | None = None, client_id: str | None = None,
                     ags: dict | None = None, tenant: str | None = None,
                     score_rule: str | None = None, feedback: dict | None = None,
                     locale: str | None = None) -> tuple[LearnerSession, str]:
        """A new session; returns it and the cookie secret (only its hash is stored)."""
        handle, secret, csrf = secrets.token_hex(8), secrets.token_urlsafe(32), secrets.token_urlsafe(32)
        now = time.time()
        row = {"handle": handle, "secret_hash": digest(secret), "csrf": csrf, "learner": learner,
               "problem": problem, "user_id": user_id, "name": name, "issuer": issuer, "client_id": client_id,
               "ags_json": json.dumps(ags) if ags else None, "created_at": now,
               "tenant": tenant[:80] if tenant else None, "score_rule": score_rule,
               "feedback_json": json.dumps(feedback) if feedback else None,
               "locale": locale[:8] if locale else None,
               "expires_at": now + SESSION_SECONDS}
        with self.store._write() as conn:
            conn.execute(insert(sessions).values(**row))
            # sessions long expired (their score posts are over by then)
            conn.execute(delete(sessions).where(sessions.c.expires_at < now - 7 * 86400))
        return self._session(row), secret

    @staticmethod
    def _session(row: Any) -> LearnerSession:
        return LearnerSession(handle=row["handle"], learner=row["learner"], problem=row["problem"],
                              csrf=row["csrf"], user_id=row["user_id"], name=row["name"], issuer=row["issuer"],
                              client_id=row["client_id"],
                              ags=json.loads(row["ags_json"]) if row["ags_json"] else None,
                              tenant=row["tenant"], score_rule=row["score_rule"],
                              feedback=json.loads(row["feedback_json"]) if row["feedback_json"] else None,
                              locale=row["locale"])

    def session(self, handle: str | None = None, csrf: str | None = None,
                any_age: bool = False) -> tuple[LearnerSession, str] | None:
        """An unexpired session (any, for score passback) by its handle or CSRF token, with its secret's hash."""
        query = select(sessions).where(sessions.c.expires_at >= (0 if any_age else time.time()))
        if handle is not None:
            query = query.where(sessions.c.handle == handle)
        elif csrf is not None:
            query = query.where(sessions.c.csrf == csrf)
        else:
            return None
        with self.store._read() as conn:
            row = conn.execute(query).mappings().first()
        return (self._session(row), row["secret_hash"]) if row is not None else None

    # -- learners of /learn (no LMS) ---------------------------------------------------------
    def learn_join(self, course: str, name: str, code_hash: str) -> LearnLearner:
        """A new learner of ``course``: a random id, known by the hash of their personal code from now on."""
        row: dict[str, Any] = {"id": secrets.token_hex(16), "course": course, "name": name, "code_hash": code_hash,
               "created_at": time.time()}
        with self.store._write() as conn:
            conn.execute(insert(learn_learners).values(**row))
        return LearnLearner(row["id"], course, name)

    def learn_learner(self, code_hash: str) -> LearnLearner | None:
        with self.store._read() as conn:
            row = conn.execute(select(learn_learners.c.id, learn_learners.c.course, learn_learners.c.name)
                               .where(learn_learners.c.code_hash == code_hash)).first()
        return LearnLearner(*row) if row is not None else None

    def learn_roster(self, course: str) -> list[LearnLearner]:
        """Everyone who joined ``course``, oldest first."""
        with self.store._read() as conn:
            rows = conn.execute(select(learn_learners.c.id, learn_learners.c.course, learn_learners.c.name)
                                .where(learn_learners.c.course == course)
                                .order_by(learn_learners.c.created_at)).all()
        return [LearnLearner(*r) for r in rows]

    # -- teachers ----------------------------------------------------------------------
    def mark_staff(self, handle: str, course: dict) -> None:
        with self.store._write() as conn:
            conn.execute(insert(staff).values(handle=handle, course_json=json.dumps(course)))

    def course_of(self, handle: str) -> dict | None:
        """The course of a teacher's session; None for a learner's."""
        with self.store._read() as conn:
            row = conn.execute(select(staff.c.course_json).where(staff.c.handle == handle)).first()
        return json.loads(row[0]) if row is not None else None

    def class_rows(self, learners: list[str], problem: str) -> list[tuple[str, StoredSubmission]]:
        """(learner, submission) for every submission these learners made for ``problem``, oldest first."""
        if not learners:
            return []
        query = (select(owned.c.learner, submissions).join(owned, owned.c.submission_id == submissions.c.id)
                 .where(owned.c.learner.in_(learners), owned.c.problem == problem).order_by(owned.c.created_at))
        with self.store._read() as conn:
            return [(r["learner"], StoredSubmission.of(r)) for r in conn.execute(query).mappings().all()]

    # -- ownership --------------------------------------------------------------------
    def own(self, submission_id: str, session: LearnerSession, with_scores: bool) -> None:
        now = time.time()
        with self.store._write() as conn:
            conn.execute(insert(owned).values(submission_id=submission_id, learner=session.learner,
                                              problem=session.problem, session=session.handle, created_at=now))
            if with_scores:
                conn.execute(insert(scores), [
                    {"submission_id": submission_id, "session": session.handle, "kind": "pending", "state": "due",
                     "timestamp": now, "attempts": 0, "next_at": now},
                    {"submission_id": submission_id, "session": session.handle, "kind": "final",
                     "state": "waiting", "timestamp": None, "attempts": 0, "next_at": None}])

    def owned_row(self, submission_id: str, session: LearnerSession) -> StoredSubmission | None:
        """The submission, only if this learner made it for this problem."""
        query = (select(submissions).join(owned, owned.c.submission_id == submissions.c.id)
                 .where(owned.c.submission_id == submission_id, owned.c.learner == session.learner,
                        owned.c.problem == session.problem))
        with self.store._read() as conn:
            row = conn.execute(query).mappings().first()
        return StoredSubmission.of(row) if row is not None else None

    def history(self, session: LearnerSession, limit: int = 50) -> list[StoredSubmission]:
        """This learner's submissions for this problem, newest first."""
        query = (select(submissions).join(owned, owned.c.submission_id == submissions.c.id)
                 .where(owned.c.learner == session.learner, owned.c.problem == session.problem)
                 .order_by(owned.c.created_at.desc()).limit(limit))
        with self.store._read() as conn:
            return [StoredSubmission.of(r) for r in conn.execute(query).mappings().all()]

    # -- score posts ---------------------------------------------------------------------
    def promote_judged(self) -> int:
        """Final scores whose submission is judged become due now."""
        now = time.time()
        judged = select(submissions.c.id).where(submissions.c.state == DONE)
        with self.store._write() as conn:
            result = conn.execute(update(scores).where(scores.c.state == "waiting", scores.c.kind == "final",
                                                       scores.c.submission_id.in_(judged))
                                  .values(state="due", timestamp=now, next_at=now))
            return result.rowcount

    def due_scores(self, now: float, limit: int = 16) -> list[ScoreRow]:
        with self.store._read() as conn:
            rows = conn.execute(select(scores).where(scores.c.state == "due", scores.c.next_at <= now)
                                .order_by(scores.c.next_at).limit(limit)).mappings().all()
        return [ScoreRow.of(r) for r in rows]

    def claim_score(self, score_id: int, seen_attempts: int, lease_until: float) -> bool:
        with self.store._write() as conn:
            result = conn.execute(update(scores).where(and_(scores.c.id == score_id, scores.c.state == "due",
                                                            scores.c.attempts == seen_attempts))
                                  .values(attempts=seen_attempts + 1, next_at=lease_until))
            return result.rowcount == 1

    def score_result(self, score_id: int, sent: bool, error: str | None, next_at: float | None) -> None:
        state = "sent" if sent else ("due" if next_at is not None else "failed")
        with self.store._write() as conn:
            conn.execute(update(scores).where(scores.c.id == score_id)
                         .values(state=state, error=(error or None) and error[:2000], next_at=next_at))

    def scores_of(self, submission_id: str) -> list[ScoreRow]:
        with self.store._read() as conn:
            return [ScoreRow.of(r) for r in conn.execute(select(scores).where(scores.c.submission_id == submission_id)
                                                         .order_by(scores.c.id)).mappings().all()]

    # -- pictures ---------------------------------------------------------------------------------
    def save_pictures(self, submission_id: str, drawn: list[tuple[Any, bytes]]) -> None:
        """The PNGs (and an index: the verdict's Picture entries) of a submission; an empty index says
        "drawn, nothing to show", so the page stops waiting."""
        kept = [(picture, data) for picture, data in drawn if len(data) <= PICTURE_MAX_BYTES]
        index = json.dumps([picture.model_dump() for picture, _ in kept]).encode()
        rows = [{"submission_id": submission_id, "name": INDEX, "data": index}]
        rows += [{"submission_id": submission_id, "name": picture.file, "data": data} for picture, data in kept]
        with self.store._write() as conn:
            conn.execute(delete(pictures).where(pictures.c.submission_id == submission_id))
            conn.execute(insert(pictures), rows)

    def pictures_of(self, submission_id: str) -> list[dict] | None:
        """The pictures with inline ``url`` (data: URIs), or None while they are not drawn yet."""
        with self.store._read() as conn:
            rows = dict(conn.execute(select(pictures.c.name, pictures.c.data)
                                     .where(pictures.c.submission_id == submission_id)).all())
        if INDEX not in rows:
            return None
        out = []
        for picture in json.loads(bytes(rows[INDEX])):
            data = rows.get(picture.get("file"))
            if data is not None:
                out.append({**picture, "url": "data:image/png;base64," + base64.b64encode(bytes(data)).decode()})
        return out
