"""What a learner may see of a stored verdict: :func:`judge.formats.learner.learner_view` on the verdict's JSON.

The platform API returns the whole verdict; the learner page gets this view, cut by the problem's feedback policy
(problem.yaml's ``feedback:``, unless the caller passes the activity's own).  One function for every door, so the
page, ``check()``, the packaged runners and the local exports withhold the same things.
"""

from __future__ import annotations

import threading
from datetime import datetime

from fastapi import Header, Query

from judge.formats.learner import learner_view
from judge.i18n import negotiate
from judge.i18n.localize import localize
from judge.problem.feedback_policy import FeedbackPolicy
from judge.verdict import Verdict

_policies: dict[str, tuple[tuple, FeedbackPolicy]] = {}
_lock = threading.Lock()


def bundle_policy(problem: str) -> FeedbackPolicy:
    """The problem's own policy (re-read when its bundle changes); the default one for a problem that is gone
    or broken, so a stored verdict is still shown, never less withheld than by default."""
    from judge.errors import JudgeError
    from judge.grading.prepare import bundle_mtimes
    from judge.problem.loader import load_problem, resolve

    try:
        stamp = bundle_mtimes(resolve(problem))
        with _lock:
            hit = _policies.get(problem)
            if hit is not None and hit[0] == stamp:
                return hit[1]
        policy = load_problem(problem).spec.feedback
    except (JudgeError, OSError):
        return FeedbackPolicy()
    with _lock:
        _policies[problem] = (stamp, policy)
    return policy


def learner_verdict(verdict: dict | None, policy: FeedbackPolicy | None = None,
                    now: datetime | None = None, lang: str = "en") -> dict | None:
    """The learner's view of a stored verdict (``policy``: default the problem's own), its texts in ``lang``
    (rendered from the view's message ids: :func:`judge.i18n.localize.localize`, after the cut)."""
    if verdict is None:
        return None
    full = Verdict.model_validate(verdict)
    return localize(learner_view(full, policy or bundle_policy(full.problem), now), lang).model_dump(mode="json")


def learner_language(lang: str | None = Query(None, max_length=40, description="the language of the verdict's "
                                              "texts: en, fr or ru (the page's language menu); default: "
                                              "Accept-Language"),
                     accept_language: str | None = Header(None)) -> str:
    """The language a learner page's request asks for: the menu's choice, else the browser's Accept-Language,
    else English.  Only ever one of the judge's languages: the value chooses a catalog, never a path or a text."""
    return negotiate(lang, accept_language)
