"""LTI 1.3: launches, deep linking, the learner's page and the class view, grade passback.

A package (not a namespace folder) so that a wheel carries it: the packaged platform runners render what
learners see through :mod:`judge.service.lti.learner_view`.
"""
