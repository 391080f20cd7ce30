"""A learner session keeps its LTI launch's language (the launch presentation claim's ``locale``, reduced to one
of the judge's languages: ``en``, ``fr``, ``ru``), as it keeps ``score_rule``: the page and its API speak it.

A session made before has none (NULL): the browser's Accept-Language, as before.

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("judge_lti_sessions", sa.Column("locale", sa.String(8), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("judge_lti_sessions") as batch:
        batch.drop_column("locale")
