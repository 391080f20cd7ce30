"""The learner page's view of a stored verdict: :mod:`judge.service.learner_view`, where it lives since the
platform API's learner view (a core route, which may not import the learner side) uses it too."""

from __future__ import annotations

from judge.service.learner_view import activity_policy, bundle_policy, learner_verdict

__all__ = ["activity_policy", "bundle_policy", "learner_verdict"]
