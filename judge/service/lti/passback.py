"""Score passback (LTI AGS): ``Pending`` when a submission is queued, ``FullyGraded`` when judged.

Each post is a row in ``judge_lti_scores``, sent by a background thread and retried with the same
backoff as callbacks (``JUDGE_CALLBACK_BACKOFF_*``, ``JUDGE_CALLBACK_MAX_ATTEMPTS``), so a slow or
down gradebook never holds up the learner's page.  A platform keeps the Score with the latest timestamp, so:

- a ``FullyGraded`` Score is the learner's standing (:mod:`judge.service.lti.standing`: their best score, or
  their newest submission's, as the activity says), computed and stamped when it is sent, so the newest post is
  always the freshest standing, after a rejudge too, and a retried post is computed again;
- a ``Pending`` Score carries the time its submission was made, so a late one cannot overwrite a grade; under
  the ``best`` rule it also carries the standing so far, so a new try never shows as a lower grade meanwhile.
"""

from __future__ import annotations

import json
import logging
import time
from datetime import UTC, datetime

from judge.service.delivery import Dispatcher
from judge.service.lti.adapter import CachingConnector
from judge.service.lti.standing import Standing, rule_of, standing
from judge.service.lti.tables import LearnerSession, LtiStore, ScoreRow
from judge.service.settings import Settings

log = logging.getLogger("judge.service.lti")
SCORE_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
SCORE_MAXIMUM = 1.0


def comment(verdict: dict | None, standing_of: Standing | None = None) -> str:
    """A short line for the gradebook: the status and the first diagnosis, if any (and, for a best score
    among several submissions, that it is the best)."""
    if not verdict:
        return "not judged"
    status = str(verdict.get("status", "")).replace("_", " ")
    diagnoses = verdict.get("diagnoses") or []
    first = diagnoses[0].get("message", "") if diagnoses else ""
    text = f"{status}: {first}" if first else status
    if standing_of is not None and standing_of.rule == "best" and standing_of.submissions > 1:
        note = f" (the best of {standing_of.submissions} submissions)"
        return text[:250 - len(note)] + note
    return text[:250]


class ScoreDispatcher(Dispatcher):
    name = "judge-lti-scores"

    def __init__(self, lti: LtiStore, settings: Settings, tool_config) -> None:  # noqa: ANN001
        super().__init__(settings, workers=2)
        self.lti, self.tool_config = lti, tool_config

    def dispatch_due(self) -> None:
        self.lti.promote_judged()
        now = time.time()
        for due in self.lti.due_scores(now):
            if self.in_flight(due.id):
                continue
            if self.lti.claim_score(due.id, due.attempts, now + 60):
                self.send(due.id, self._send, due, due.attempts + 1)

    def _grade(self, row: ScoreRow, session: LearnerSession):  # noqa: ANN202 - a pylti1p3 Grade
        from pylti1p3.grade import Grade

        assert session.user_id is not None  # _send posts only for a launch with a user id
        rule = rule_of(session.score_rule, self.settings.score_rule)
        now = standing(self.lti.store, session.learner, session.problem, rule)
        stamp = datetime.fromtimestamp((row.timestamp or time.time()) if row.kind == "pending" else time.time(),
                                       tz=UTC)
        grade = (Grade().set_user_id(session.user_id).set_timestamp(stamp.isoformat())
                 .set_score_maximum(SCORE_MAXIMUM))
        if row.kind == "pending":
            grade = grade.set_activity_progress("Submitted").set_grading_progress("Pending")
            if rule == "best" and now is not None:  # the standing so far: a new try does not blank the grade
                grade = grade.set_score_given(round(now.score * SCORE_MAXIMUM, 6))
            return grade
        if now is None:  # not reachable for a judged submission; its own verdict then, never nothing
            sub = self.lti.store.get(row.submission_id)
            verdict = json.loads(sub.verdict_json) if sub and sub.verdict_json else None
            now = Standing(score=float((verdict or {}).get("score", 0.0)), submission_id=row.submission_id,
                           verdict=verdict, submissions=1, rule=rule)
        return (grade.set_activity_progress("Completed").set_grading_progress("FullyGraded")
                .set_score_given(round(now.score * SCORE_MAXIMUM, 6)).set_comment(comment(now.verdict, now)))

    def _send(self, row: ScoreRow, attempt: int) -> None:
        from pylti1p3.assignments_grades import AssignmentsGradesService
        from pylti1p3.exception import LtiException

        error = None
        try:
            found = self.lti.session(handle=row.session, any_age=True)
            if found is None or not found[0].ags or not found[0].user_id:
                self.lti.score_result(row.id, False, "the launch had no AGS endpoint or user id", None)
                return
            session = found[0]
            assert session.ags is not None  # checked just above
            registration = self.tool_config.find_registration_by_params(session.issuer, session.client_id)
            service = AssignmentsGradesService(CachingConnector(registration), session.ags)  # type: ignore[arg-type]  # a TypedDict
            service.put_grade(self._grade(row, session))
            self.lti.score_result(row.id, True, None, None)
            log.info("submission %s: %s score posted (attempt %d)", row.submission_id, row.kind, attempt)
            return
        except LtiException as exc:
            response = exc.args[1] if len(exc.args) > 1 else None
            status = getattr(response, "status_code", None)
            error = f"{exc.args[0] if exc.args else exc}" + (f" (HTTP {status})" if status else "")
        except Exception as exc:  # noqa: BLE001 - network errors, a platform answering nonsense
            error = f"{type(exc).__name__}: {exc}"
        if attempt >= self.settings.callback_max_attempts:
            log.warning("submission %s: %s score failed for good after %d attempts: %s", row.submission_id,
                        row.kind, attempt, error)
            self.lti.score_result(row.id, False, error, None)
        else:
            log.info("submission %s: %s score attempt %d failed (%s); retrying", row.submission_id, row.kind,
                     attempt, error)
            self.lti.score_result(row.id, False, error, time.time() + self.backoff(attempt))
