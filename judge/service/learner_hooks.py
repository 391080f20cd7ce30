"""What the core of the service asks of the learner side (``judge.service.lti``), without importing it.

Why a hook: the worker and the rejudge are the core, the learner side is a door built on them; the core
importing it made every worker load LTI code and made the layers circular (the learner side imports the store,
the worker, the rejudge).  Instead the learner side registers one object with this contract when a process that
judges or applies rejudges starts (``create_app``, ``judge worker``), and the core calls it if present: with none
registered, no pictures are drawn and a rejudge posts no grades, which is what a service without the learner
side needs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from sqlalchemy.engine import Connection

    from judge.feedback import Picture
    from judge.service.store import Store


class LearnerHooks(Protocol):
    """The two moments the learner side must hear of."""

    def save_pictures(self, store: Store, submission_id: str, drawn: list[tuple[Picture, bytes]]) -> None:
        """A learner-page submission was judged: keep the pictures its verdict names (an empty list: none)."""

    def verdicts_replaced(self, conn: Connection, submission_ids: list[str], now: float) -> None:
        """A rejudge replaced these verdicts, in ``conn``'s transaction: post the learners' new grades."""


_registered: LearnerHooks | None = None


def register(hooks: LearnerHooks | None) -> None:
    """The learner side's hooks for this process (None: none)."""
    global _registered
    _registered = hooks


def registered() -> LearnerHooks | None:
    return _registered
