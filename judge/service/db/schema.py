"""Every table of the service, on one :data:`metadata`: the schema the migrations bring a database to.

The data map (who writes and reads each table) is :mod:`judge.service.db`'s docstring.  A table added or changed
here needs a revision in ``migrations/versions`` too: tests/service/test_service_migrations.py compares the migrated
database with this module and fails on any difference.
"""

from __future__ import annotations

from sqlalchemy import Column, Float, Index, Integer, LargeBinary, MetaData, String, Table, Text, UniqueConstraint

metadata = MetaData()

# -- submissions: the API writes them, workers claim and judge them (judge.service.store) --
submissions = Table(
    "judge_submissions", metadata,
    Column("id", String(32), primary_key=True),
    Column("platform", String(64), nullable=False),
    Column("problem", String(200), nullable=False),
    Column("problem_digest", String(64)),  # the bundle version it was accepted under (judge.service.bundle_versions)
    Column("source", Text, nullable=False),
    Column("callback_url", Text),
    Column("metadata_json", Text),
    Column("idempotency_key", String(255)),
    Column("request_hash", String(64)),
    Column("state", String(16), nullable=False),
    Column("status", String(32)),
    Column("verdict_json", Text),
    # the public cases' verdict while the hidden ones run (judge.grading.phases); never the verdict of record
    Column("public_verdict_json", Text),
    Column("created_at", Float, nullable=False),
    Column("enqueued_at", Float),
    Column("started_at", Float),
    Column("finished_at", Float),
    Column("attempts", Integer, nullable=False, default=0),
    Column("worker", String(255)),
    Column("callback_state", String(16), nullable=False, default="none"),
    Column("callback_attempts", Integer, nullable=False, default=0),
    Column("callback_next_at", Float),
    Column("callback_error", Text),
    # the tenant whose pending limit the submission counts in (a token; an LTI deployment's course; a course code)
    Column("tenant", String(80)),
    # 1 for the first verdict, +1 each time a rejudge replaces it: a callback is bound to the version it carries
    Column("verdict_version", Integer, nullable=False, default=0, server_default="0"),
    Column("callback_version", Integer),  # the version the delivery in flight carries (None: none in flight)
    UniqueConstraint("platform", "idempotency_key", name="uq_judge_submissions_idempotency"),
    Index("ix_judge_submissions_state", "state", "created_at"),
    Index("ix_judge_submissions_callback", "callback_state", "callback_next_at"),
    # a platform's listing, newest first, a page at a time (GET /v1/submissions): a seek, not a scan
    Index("ix_judge_submissions_platform", "platform", "created_at", "id"),
)

# -- rejudges: the API creates and applies them, the runner grades their items (judge.service.rejudge) --
rejudges = Table(
    "judge_rejudges", metadata,
    Column("id", String(32), primary_key=True),
    Column("problem", String(200), nullable=False),
    Column("dry_run", Integer, nullable=False),
    Column("state", String(16), nullable=False),             # queued | running | done | applied | cancelled
    Column("digest", String(64)),                            # the bundle version the new verdicts come from
    Column("total", Integer, nullable=False),
    Column("created_at", Float, nullable=False),
    Column("started_at", Float),
    Column("finished_at", Float),
    Column("applied_at", Float),
    Column("requested_by", String(255)),
)

items = Table(
    "judge_rejudge_items", metadata,
    Column("rejudge_id", String(32), primary_key=True),
    Column("submission_id", String(32), primary_key=True),
    Column("old_status", String(32)),
    Column("old_score", Float),
    Column("new_status", String(32)),
    Column("new_score", Float),
    Column("new_verdict_json", Text),
    Index("ix_judge_rejudge_items_todo", "rejudge_id", "new_status"),
)

history = Table(
    "judge_verdict_history", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("submission_id", String(32), nullable=False),
    Column("verdict_json", Text),
    Column("status", String(32)),
    Column("replaced_at", Float, nullable=False),
    Column("rejudge_id", String(32)),
    Index("ix_judge_verdict_history_submission", "submission_id"),
)

# -- claims: one per running copy of a job, beating while it runs (judge.service.claims) --
claims = Table(
    "judge_claims", metadata,
    Column("token", String(32), primary_key=True),
    Column("submission_id", String(32), nullable=False),
    Column("worker", String(255)),
    Column("claimed_at", Float, nullable=False),
    Column("alive_at", Float, nullable=False),
    Index("ix_judge_claims_submission", "submission_id"),
)

# -- the fleet: each worker's slots, beating (judge.service.worker_slots) --
slots_table = Table(
    "judge_worker_slots", metadata,
    Column("name", String(255), primary_key=True),
    Column("slots", Integer, nullable=False),
    Column("busy", Integer, nullable=False),
    Column("seen_at", Float, nullable=False),
)

# -- bundle versions: the API stores them, workers fetch them (judge.service.bundle_versions) --
bundles = Table(
    "judge_bundles", metadata,
    Column("digest", String(64), primary_key=True),
    Column("problem", String(200), nullable=False),
    Column("archive", LargeBinary, nullable=False),  # tar.gz of the bundle's files
    Column("created_at", Float, nullable=False),
)

# -- the learner side: LTI launches, /learn sign-ins, gradebook posts (judge.service.lti.tables) --
kv = Table(
    "judge_lti_kv", metadata,
    Column("key", String(255), primary_key=True),
    Column("value_json", Text, nullable=False),
    Column("expires_at", Float, nullable=False),
)

sessions = Table(
    "judge_lti_sessions", metadata,
    Column("handle", String(32), primary_key=True),          # in the page's URL and the cookie's name
    Column("secret_hash", String(64), nullable=False),       # SHA-256 of the cookie's value
    Column("csrf", String(64), nullable=False, unique=True),
    Column("learner", String(64), nullable=False),           # SHA-256 of (issuer, deployment, course, user)
    Column("problem", String(200), nullable=False),
    Column("user_id", String(255)),                          # the platform's id for the learner (AGS userId)
    Column("name", String(255)),
    Column("issuer", String(255)),
    Column("client_id", String(255)),
    Column("ags_json", Text),                                # the AGS endpoint claim, if the launch had one
    Column("tenant", String(80)),                            # whose pending limit its submissions count in
    Column("score_rule", String(16)),                        # the activity's gradebook rule (lti.standing)
    Column("feedback_json", Text),                           # the activity's feedback policy override
    Column("locale", String(8)),                             # the launch's language (en, fr, ru), if it gave one
    Column("created_at", Float, nullable=False),
    Column("expires_at", Float, nullable=False),
)

owned = Table(
    "judge_lti_owned", metadata,
    Column("submission_id", String(32), primary_key=True),
    Column("learner", String(64), nullable=False),
    Column("problem", String(200), nullable=False),
    Column("session", String(32), nullable=False),
    Column("created_at", Float, nullable=False),
    Index("ix_judge_lti_owned_learner", "learner", "problem", "created_at"),
)

scores = Table(
    "judge_lti_scores", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("submission_id", String(32), nullable=False),
    Column("session", String(32), nullable=False),
    Column("kind", String(16), nullable=False),              # pending | final
    Column("state", String(16), nullable=False),             # waiting (final, not judged) | due | sent | failed
    Column("timestamp", Float),                              # the Score's timestamp (set when it becomes due)
    Column("attempts", Integer, nullable=False, default=0),
    Column("next_at", Float),
    Column("error", Text),
    Index("ix_judge_lti_scores_state", "state", "next_at"),
)

staff = Table(
    "judge_lti_staff", metadata,
    Column("handle", String(32), primary_key=True),          # the teacher's session (judge_lti_sessions)
    Column("course_json", Text, nullable=False),             # issuer, client id, deployment, context, NRPS URL
)

pictures = Table(
    "judge_lti_pictures", metadata,
    Column("submission_id", String(32), primary_key=True),
    Column("name", String(200), primary_key=True),           # the verdict's picture ``file``
    Column("data", LargeBinary, nullable=False),
)

learn_learners = Table(
    "judge_learn_learners", metadata,
    Column("id", String(32), primary_key=True),              # the learner's id in the course (random)
    Column("course", String(200), nullable=False),           # the course of JUDGE_LEARN_CODES they joined
    Column("name", String(255), nullable=False),             # as typed at sign-in: shown, never an identity
    Column("code_hash", String(64), nullable=False, unique=True),  # SHA-256 of their personal code
    Column("created_at", Float, nullable=False),
    Index("ix_judge_learn_learners_course", "course"),
)
