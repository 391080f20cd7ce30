"""The service's data: every table in one schema (:mod:`.schema`), brought up to date by Alembic (:mod:`.migrate`).

One database holds everything, so several servers and workers share it: SQLite on one machine, PostgreSQL
when shared.  Each table in a line: what a row is; who writes it; who reads it.  "API" is ``judge serve``
(its routes and background loops), "worker" is the code that judges (embedded threads or ``judge worker``, whose
own database role may touch only what :mod:`judge.service.worker_role` grants).

- ``judge_submissions``: one submission, from acceptance to its current verdict and callback; the API
  creates it and delivers its callback, a worker claims it and stores the verdict, a rejudge's apply replaces
  the verdict; read by the API's routes, ``/metrics``, the sweeper, the learner and teacher pages
  (:mod:`judge.service.store`).
- ``judge_claims``: one running copy of a job, beating while it runs; written by the worker that runs it; read
  by the next copy's claim (only dead claims count as failed attempts) (:mod:`judge.service.claims`).
- ``judge_worker_slots``: one worker process's slots and how many are busy; written by that worker's
  heartbeat; read by ``/metrics`` (:mod:`judge.service.worker_slots`).
- ``judge_bundles``: one version of a problem's bundle (a tar.gz, keyed by digest); written by the API when it
  accepts a submission under a version it has not stored; read by workers whose copy differs
  (:mod:`judge.service.bundle_versions`).
- ``judge_rejudges``: one rejudge of a problem; created, applied and cancelled by the API, marked running and
  done by its runner (an API thread or a worker's task); read by ``/v1/rejudges`` and the teacher's page
  (:mod:`judge.service.rejudge`).
- ``judge_rejudge_items``: one submission of a rejudge, its old and new verdict; created by the API, graded by
  the runner; read when the rejudge is shown and applied.
- ``judge_verdict_history``: one verdict a rejudge replaced; written by the API when it applies; read by
  ``RejudgeStore.history_of`` (what a submission's verdicts were).
- ``judge_lti_kv``: one of pylti1p3's launch records (nonce, state, launch data) with its expiry; written and
  read by the LTI login and launch routes (:mod:`judge.service.lti.tables`).
- ``judge_lti_sessions``: one learner-page session (an LTI launch or a ``/learn`` sign-in): learner, problem,
  CSRF token, AGS endpoint; written at launch; read by every learner and teacher route.
- ``judge_lti_owned``: which learner made a submission; written by the learner page when it submits; read by
  the learner page (one's own only), the class view and the gradebook (:mod:`judge.service.lti.standing`).
- ``judge_lti_scores``: one grade to post to the platform (AGS), retried with backoff; written by the learner
  page when it submits (a pending and a final score) and when a rejudge is applied (the learner's standing);
  made due, read and updated by the API's passback loop (:mod:`judge.service.lti.passback`).
- ``judge_lti_staff``: a teacher's session and their course; written at a teacher's launch; read by the class
  view (:mod:`judge.service.lti.class_view`).
- ``judge_lti_pictures``: one PNG a learner's verdict names; written by the worker that judged it; read by the
  learner page.
- ``judge_learn_learners``: one learner who joined a course at ``/learn``: name, hash of their personal code;
  written at sign-up; read at sign-in and by the class view (:mod:`judge.service.lti.learn`).
- ``alembic_version``: the revision the database is at; written by :func:`judge.service.db.migrate.upgrade` at
  every start of the API (and of a worker whose role may); read by the same.
"""

import logging

# Alembic names each of its plugins when it is first imported: lines of noise in every server's and worker's log.
# Set here, before judge.service.db.migrate imports Alembic.
logging.getLogger("alembic.runtime.plugins").setLevel(logging.WARNING)
