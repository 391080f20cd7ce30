"""The service's schema as it was when migrations began: every table, made where missing.

Why the tables are made only where missing: a database made before the schema was versioned has no
``alembic_version`` table but has (some of) these tables, made by ``metadata.create_all`` of the version that
made it, without the columns added since (a column was added by hand at start-up then).  Alembic runs this
revision on it as on an empty database, and this revision brings it to the same schema: the tables it lacks
are made, the columns added since are added (with the value an old row needs), the rest is left as it is.
From here on every change is a revision of its own.

Revision ID: 0001
Revises: (none)
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None



def added_columns() -> tuple[tuple[str, sa.Column, str | None], ...]:
    """Columns added after their table was first made: (table, column, SQL run once when it is added).  New
    Column objects at each call: one joins the table it is added to, and the next database needs its own."""
    return (
        ("judge_submissions", sa.Column("problem_digest", sa.String(length=64), nullable=True), None),
        ("judge_submissions", sa.Column("tenant", sa.String(length=80), nullable=True), None),
        # a verdict stored before versions were counted is the first: version 1, so a rejudge's is 2
        ("judge_submissions", sa.Column("verdict_version", sa.Integer(), server_default="0", nullable=False),
         "UPDATE judge_submissions SET verdict_version = 1 WHERE state = 'done'"),
        ("judge_submissions", sa.Column("callback_version", sa.Integer(), nullable=True), None),
        ("judge_lti_sessions", sa.Column("tenant", sa.String(length=80), nullable=True), None),
        ("judge_lti_sessions", sa.Column("score_rule", sa.String(length=16), nullable=True), None),
    )


def _bundles() -> None:
    op.create_table('judge_bundles',
        sa.Column('digest', sa.String(length=64), nullable=False),
        sa.Column('problem', sa.String(length=200), nullable=False),
        sa.Column('archive', sa.LargeBinary(), nullable=False),
        sa.Column('created_at', sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint('digest')
        )


def _claims() -> None:
    op.create_table('judge_claims',
        sa.Column('token', sa.String(length=32), nullable=False),
        sa.Column('submission_id', sa.String(length=32), nullable=False),
        sa.Column('worker', sa.String(length=255), nullable=True),
        sa.Column('claimed_at', sa.Float(), nullable=False),
        sa.Column('alive_at', sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint('token')
        )
    op.create_index('ix_judge_claims_submission', 'judge_claims', ['submission_id'], unique=False)


def _learn_learners() -> None:
    op.create_table('judge_learn_learners',
        sa.Column('id', sa.String(length=32), nullable=False),
        sa.Column('course', sa.String(length=200), nullable=False),
        sa.Column('name', sa.String(length=255), nullable=False),
        sa.Column('code_hash', sa.String(length=64), nullable=False),
        sa.Column('created_at', sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('code_hash')
        )
    op.create_index('ix_judge_learn_learners_course', 'judge_learn_learners', ['course'], unique=False)


def _lti_kv() -> None:
    op.create_table('judge_lti_kv',
        sa.Column('key', sa.String(length=255), nullable=False),
        sa.Column('value_json', sa.Text(), nullable=False),
        sa.Column('expires_at', sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint('key')
        )


def _lti_owned() -> None:
    op.create_table('judge_lti_owned',
        sa.Column('submission_id', sa.String(length=32), nullable=False),
        sa.Column('learner', sa.String(length=64), nullable=False),
        sa.Column('problem', sa.String(length=200), nullable=False),
        sa.Column('session', sa.String(length=32), nullable=False),
        sa.Column('created_at', sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint('submission_id')
        )
    op.create_index('ix_judge_lti_owned_learner',
                    'judge_lti_owned', ['learner', 'problem', 'created_at'], unique=False)


def _lti_pictures() -> None:
    op.create_table('judge_lti_pictures',
        sa.Column('submission_id', sa.String(length=32), nullable=False),
        sa.Column('name', sa.String(length=200), nullable=False),
        sa.Column('data', sa.LargeBinary(), nullable=False),
        sa.PrimaryKeyConstraint('submission_id', 'name')
        )


def _lti_scores() -> None:
    op.create_table('judge_lti_scores',
        sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
        sa.Column('submission_id', sa.String(length=32), nullable=False),
        sa.Column('session', sa.String(length=32), nullable=False),
        sa.Column('kind', sa.String(length=16), nullable=False),
        sa.Column('state', sa.String(length=16), nullable=False),
        sa.Column('timestamp', sa.Float(), nullable=True),
        sa.Column('attempts', sa.Integer(), nullable=False),
        sa.Column('next_at', sa.Float(), nullable=True),
        sa.Column('error', sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint('id')
        )
    op.create_index('ix_judge_lti_scores_state', 'judge_lti_scores', ['state', 'next_at'], unique=False)


def _lti_sessions() -> None:
    op.create_table('judge_lti_sessions',
        sa.Column('handle', sa.String(length=32), nullable=False),
        sa.Column('secret_hash', sa.String(length=64), nullable=False),
        sa.Column('csrf', sa.String(length=64), nullable=False),
        sa.Column('learner', sa.String(length=64), nullable=False),
        sa.Column('problem', sa.String(length=200), nullable=False),
        sa.Column('user_id', sa.String(length=255), nullable=True),
        sa.Column('name', sa.String(length=255), nullable=True),
        sa.Column('issuer', sa.String(length=255), nullable=True),
        sa.Column('client_id', sa.String(length=255), nullable=True),
        sa.Column('ags_json', sa.Text(), nullable=True),
        sa.Column('tenant', sa.String(length=80), nullable=True),
        sa.Column('score_rule', sa.String(length=16), nullable=True),
        sa.Column('created_at', sa.Float(), nullable=False),
        sa.Column('expires_at', sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint('handle'),
        sa.UniqueConstraint('csrf')
        )


def _lti_staff() -> None:
    op.create_table('judge_lti_staff',
        sa.Column('handle', sa.String(length=32), nullable=False),
        sa.Column('course_json', sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint('handle')
        )


def _rejudge_items() -> None:
    op.create_table('judge_rejudge_items',
        sa.Column('rejudge_id', sa.String(length=32), nullable=False),
        sa.Column('submission_id', sa.String(length=32), nullable=False),
        sa.Column('old_status', sa.String(length=32), nullable=True),
        sa.Column('old_score', sa.Float(), nullable=True),
        sa.Column('new_status', sa.String(length=32), nullable=True),
        sa.Column('new_score', sa.Float(), nullable=True),
        sa.Column('new_verdict_json', sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint('rejudge_id', 'submission_id')
        )
    op.create_index('ix_judge_rejudge_items_todo', 'judge_rejudge_items', ['rejudge_id', 'new_status'], unique=False)


def _rejudges() -> None:
    op.create_table('judge_rejudges',
        sa.Column('id', sa.String(length=32), nullable=False),
        sa.Column('problem', sa.String(length=200), nullable=False),
        sa.Column('dry_run', sa.Integer(), nullable=False),
        sa.Column('state', sa.String(length=16), nullable=False),
        sa.Column('digest', sa.String(length=64), nullable=True),
        sa.Column('total', sa.Integer(), nullable=False),
        sa.Column('created_at', sa.Float(), nullable=False),
        sa.Column('started_at', sa.Float(), nullable=True),
        sa.Column('finished_at', sa.Float(), nullable=True),
        sa.Column('applied_at', sa.Float(), nullable=True),
        sa.Column('requested_by', sa.String(length=255), nullable=True),
        sa.PrimaryKeyConstraint('id')
        )


def _submissions() -> None:
    op.create_table('judge_submissions',
        sa.Column('id', sa.String(length=32), nullable=False),
        sa.Column('platform', sa.String(length=64), nullable=False),
        sa.Column('problem', sa.String(length=200), nullable=False),
        sa.Column('problem_digest', sa.String(length=64), nullable=True),
        sa.Column('source', sa.Text(), nullable=False),
        sa.Column('callback_url', sa.Text(), nullable=True),
        sa.Column('metadata_json', sa.Text(), nullable=True),
        sa.Column('idempotency_key', sa.String(length=255), nullable=True),
        sa.Column('request_hash', sa.String(length=64), nullable=True),
        sa.Column('state', sa.String(length=16), nullable=False),
        sa.Column('status', sa.String(length=32), nullable=True),
        sa.Column('verdict_json', sa.Text(), nullable=True),
        sa.Column('created_at', sa.Float(), nullable=False),
        sa.Column('enqueued_at', sa.Float(), nullable=True),
        sa.Column('started_at', sa.Float(), nullable=True),
        sa.Column('finished_at', sa.Float(), nullable=True),
        sa.Column('attempts', sa.Integer(), nullable=False),
        sa.Column('worker', sa.String(length=255), nullable=True),
        sa.Column('callback_state', sa.String(length=16), nullable=False),
        sa.Column('callback_attempts', sa.Integer(), nullable=False),
        sa.Column('callback_next_at', sa.Float(), nullable=True),
        sa.Column('callback_error', sa.Text(), nullable=True),
        sa.Column('tenant', sa.String(length=80), nullable=True),
        sa.Column('verdict_version', sa.Integer(), server_default='0', nullable=False),
        sa.Column('callback_version', sa.Integer(), nullable=True),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('platform', 'idempotency_key', name='uq_judge_submissions_idempotency')
        )
    op.create_index('ix_judge_submissions_callback',
                    'judge_submissions', ['callback_state', 'callback_next_at'], unique=False)
    op.create_index('ix_judge_submissions_state', 'judge_submissions', ['state', 'created_at'], unique=False)


def _verdict_history() -> None:
    op.create_table('judge_verdict_history',
        sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
        sa.Column('submission_id', sa.String(length=32), nullable=False),
        sa.Column('verdict_json', sa.Text(), nullable=True),
        sa.Column('status', sa.String(length=32), nullable=True),
        sa.Column('replaced_at', sa.Float(), nullable=False),
        sa.Column('rejudge_id', sa.String(length=32), nullable=True),
        sa.PrimaryKeyConstraint('id')
        )
    op.create_index('ix_judge_verdict_history_submission', 'judge_verdict_history', ['submission_id'], unique=False)


def _worker_slots() -> None:
    op.create_table('judge_worker_slots',
        sa.Column('name', sa.String(length=255), nullable=False),
        sa.Column('slots', sa.Integer(), nullable=False),
        sa.Column('busy', sa.Integer(), nullable=False),
        sa.Column('seen_at', sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint('name')
        )


#: Each table and what makes it as it was at this revision.
TABLES = {
    "judge_bundles": _bundles,
    "judge_claims": _claims,
    "judge_learn_learners": _learn_learners,
    "judge_lti_kv": _lti_kv,
    "judge_lti_owned": _lti_owned,
    "judge_lti_pictures": _lti_pictures,
    "judge_lti_scores": _lti_scores,
    "judge_lti_sessions": _lti_sessions,
    "judge_lti_staff": _lti_staff,
    "judge_rejudge_items": _rejudge_items,
    "judge_rejudges": _rejudges,
    "judge_submissions": _submissions,
    "judge_verdict_history": _verdict_history,
    "judge_worker_slots": _worker_slots,
}


def upgrade() -> None:
    bind = op.get_bind()
    present = set(sa.inspect(bind).get_table_names())
    for name, make in TABLES.items():
        if name not in present:
            make()
    for table, column, backfill in added_columns():
        if table in present and column.name not in {c["name"] for c in sa.inspect(bind).get_columns(table)}:
            op.add_column(table, column)
            if backfill:
                op.execute(backfill)


def downgrade() -> None:
    for table in ("judge_verdict_history", "judge_submissions", "judge_rejudges", "judge_rejudge_items",
                  "judge_lti_staff", "judge_lti_sessions", "judge_lti_scores", "judge_lti_pictures",
                  "judge_lti_owned", "judge_lti_kv", "judge_learn_learners", "judge_claims", "judge_bundles",
                  "judge_worker_slots"):
        op.drop_table(table)
