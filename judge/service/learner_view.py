"""What a learner may see of a stored verdict: :func:`judge.formats.learner.learner_view` on the verdict's JSON.

The platform API returns the whole verdict (and, at ``/v1/submissions/{id}/learner-view``, this view); the
learner page gets this view, cut by the problem's feedback policy
(problem.yaml's ``feedback:``, unless the caller passes the activity's own).  One function for every door, so the
page, ``check()``, the packaged runners and the local exports withhold the same things.
"""

from __future__ import annotations

import logging
import threading
from datetime import datetime
from typing import Any

from judge.formats.learner import learner_view
from judge.i18n.localize import localize
from judge.problem.feedback_override import OverrideError, apply_override
from judge.problem.feedback_policy import FeedbackPolicy
from judge.verdict import Verdict

log = logging.getLogger("judge.service.lti")

_bundles: dict[str, tuple[tuple, Any]] = {}
_lock = threading.Lock()


def current_bundle(problem: str) -> Any:
    """The problem's bundle (re-read when its files change), or None for a problem that is gone or broken."""
    from judge.errors import JudgeError
    from judge.grading.prepare import bundle_mtimes
    from judge.problem.loader import load_problem, resolve

    try:
        stamp = bundle_mtimes(resolve(problem))
        with _lock:
            hit = _bundles.get(problem)
            if hit is not None and hit[0] == stamp:
                return hit[1]
        bundle = load_problem(problem)
    except (JudgeError, OSError):
        return None
    with _lock:
        _bundles[problem] = (stamp, bundle)
    return bundle


def bundle_policy(problem: str) -> FeedbackPolicy:
    """The problem's own policy (re-read when its bundle changes); the default one for a problem that is gone
    or broken, so a stored verdict is still shown, never less withheld than by default."""
    bundle = current_bundle(problem)
    return bundle.spec.feedback if bundle is not None else FeedbackPolicy()


def activity_policy(problem: str, override: dict | None) -> FeedbackPolicy:
    """The problem's policy with the activity's override (checked at launch; a bundle changed since that the
    override no longer fits keeps the bundle's own policy, and says so in the log)."""
    policy = bundle_policy(problem)
    try:
        return apply_override(policy, override)
    except OverrideError as exc:
        log.warning("the activity's feedback override no longer fits problem %s (%s): the bundle's policy applies",
                    problem, exc)
        return policy


def learner_verdict(verdict: dict | None, policy: FeedbackPolicy | None = None,
                    now: datetime | None = None, probes_back_at: datetime | None = None,
                    lang: str = "en") -> dict | None:
    """The learner's view of a stored verdict (``policy``: default the problem's own; ``probes_back_at``: set
    when the probing limit withholds this submission's hidden feedback, see :mod:`judge.service.probes`), its
    texts in ``lang`` (rendered from the view's message ids, after the cut: :func:`judge.i18n.localize.localize`)."""
    if verdict is None:
        return None
    full = Verdict.model_validate(verdict)
    view = learner_view(full, policy or bundle_policy(full.problem), now, probes_back_at)
    # the bundle words its named mistakes and patterns itself: asked for them in ``lang``
    bundle = current_bundle(full.problem) if lang != "en" else None
    return localize(view, lang, bundle).model_dump(mode="json")
