"""Score passback (LTI AGS): ``Pending`` when a submission is queued, ``FullyGraded`` when judged.

Each post is a row in ``judge_lti_scores``, sent by a background thread and retried with the same
backoff as callbacks (``JUDGE_CALLBACK_BACKOFF_*``, ``JUDGE_CALLBACK_MAX_ATTEMPTS``), so a slow or
down gradebook never holds up the learner's page.  Every Score carries the time it describes: a
platform keeps the latest by timestamp, so a late ``Pending`` cannot overwrite a grade.
"""

from __future__ import annotations

import json
import logging
import time
from datetime import datetime, timezone

from judge.service.delivery import Dispatcher
from judge.service.lti.adapter import CachingConnector
from judge.service.lti.tables import LtiStore
from judge.service.settings import Settings

log = logging.getLogger("judge.service.lti")
SCORE_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
SCORE_MAXIMUM = 1.0


def comment(verdict: dict | None) -> str:
    """A short line for the gradebook: the status and the first diagnosis, if any."""
    if not verdict:
        return "not judged"
    status = str(verdict.get("status", "")).replace("_", " ")
    diagnoses = verdict.get("diagnoses") or []
    first = diagnoses[0].get("message", "") if diagnoses else ""
    text = f"{status}: {first}" if first else status
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

    def _grade(self, row: dict, user_id: str):  # noqa: ANN202 - a pylti1p3 Grade
        from pylti1p3.grade import Grade

        stamp = datetime.fromtimestamp(row.timestamp or time.time(), tz=timezone.utc)
        grade = Grade().set_user_id(user_id).set_timestamp(stamp.isoformat()).set_score_maximum(SCORE_MAXIMUM)
        if row.kind == "pending":
            return grade.set_activity_progress("Submitted").set_grading_progress("Pending")
        sub = self.lti.store.get(row.submission_id)
        verdict = json.loads(sub.verdict_json) if sub and sub.verdict_json else None
        score = float(verdict.get("score", 0.0)) if verdict else 0.0
        return (grade.set_activity_progress("Completed").set_grading_progress("FullyGraded")
                .set_score_given(round(score * SCORE_MAXIMUM, 6)).set_comment(comment(verdict)))

    def _send(self, row: dict, attempt: int) -> None:
        from pylti1p3.assignments_grades import AssignmentsGradesService
        from pylti1p3.exception import LtiException

        error = None
        try:
            found = self.lti.session(handle=row.session, any_age=True)
            if found is None or not found[0].ags or not found[0].user_id:
                self.lti.score_result(row.id, False, "the launch had no AGS endpoint or user id", None)
                return
            session = found[0]
            registration = self.tool_config.find_registration_by_params(session.issuer, session.client_id)
            service = AssignmentsGradesService(CachingConnector(registration), session.ags)
            service.put_grade(self._grade(row, session.user_id))
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
