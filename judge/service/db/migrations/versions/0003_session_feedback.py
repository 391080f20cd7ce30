"""A learner session keeps its activity's feedback policy override (LTI custom parameters ``feedback_*``, or a
``/learn`` course's ``JUDGE_LEARN_FEEDBACK``), as it keeps ``score_rule``: the page's views read it.

A session made before has none (NULL): the bundle's own policy, as before.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("judge_lti_sessions", sa.Column("feedback_json", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("judge_lti_sessions") as batch:
        batch.drop_column("feedback_json")
