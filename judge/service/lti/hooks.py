"""The learner side's answer to the core's :class:`~judge.service.learner_hooks.LearnerHooks`: pictures kept
beside the submission, grades posted again after a rejudge."""

from __future__ import annotations

from typing import TYPE_CHECKING

from judge.service import learner_hooks
from judge.service.lti.standing import standings_due
from judge.service.lti.tables import LtiStore

if TYPE_CHECKING:
    from sqlalchemy.engine import Connection

    from judge.feedback import Picture
    from judge.service.store import Store


class LtiHooks:
    def save_pictures(self, store: Store, submission_id: str, drawn: list[tuple[Picture, bytes]]) -> None:
        LtiStore(store).save_pictures(submission_id, drawn)

    def verdicts_replaced(self, conn: Connection, submission_ids: list[str], now: float) -> None:
        standings_due(conn, submission_ids, now)


def register() -> None:
    """Called where a process that judges or applies rejudges starts (the app, ``judge worker``)."""
    learner_hooks.register(LtiHooks())
