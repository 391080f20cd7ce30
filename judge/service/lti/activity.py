"""An activity's feedback policy, as its teacher sets it without editing the bundle: the LTI custom parameters
``feedback_hidden``, ``feedback_hidden_ids``, ``feedback_due``, ``feedback_after_due`` and ``feedback_probes``
(:mod:`judge.problem.feedback_override` reads them), kept with the launch's session like ``score_rule``.

Custom parameters are part of the id_token the platform signs, so a learner cannot change them; a ``/learn``
learner has no custom parameters at all (their course's ``JUDGE_LEARN_FEEDBACK`` applies).  The due date may
come from the platform: pylti1p3 exposes no end-date claim (LTI 1.3's resource link claim has none, and the
AGS line item's ``endDateTime`` is only in the line item, one more request to the platform per launch), so the
teacher writes ``feedback_due=$ResourceLink.submission.endDateTime``, LTI's substitution variable for the
activity's submission end, which platforms that know it (Canvas) replace with the date; a platform that does
not leaves the ``$`` text, which counts as no date.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from judge.feedback import MessageRef
from judge.i18n import messages as m
from judge.problem.feedback_override import KEYS, OverrideError, apply_override, parse_override
from judge.service.lti.learner_view import bundle_policy

PREFIX = "feedback_"


def launch_feedback(problem: str, custom: Mapping[str, Any]) -> dict | None | MessageRef:
    """The override a launch's custom parameters set (None: none), or the sentence that refuses the launch (said
    in the launch's language by the refusal page; the parameter's name and the override's error stay exact)."""
    pairs = {k: str(v) for k, v in custom.items()
             if isinstance(k, str) and k.startswith(PREFIX) and not str(v).strip().startswith("$")}
    unknown = sorted(k for k in pairs if k.removeprefix(PREFIX) not in KEYS)
    if unknown:
        return m.ERROR_FEEDBACK_UNKNOWN(parameter=unknown[0], known=", ".join(PREFIX + k for k in KEYS))
    try:
        override = parse_override(pairs, PREFIX)
        apply_override(bundle_policy(problem), override)
    except OverrideError as exc:
        return m.ERROR_FEEDBACK_INVALID(detail=str(exc))
    return override or None
