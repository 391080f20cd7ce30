"""A submission's public-phase verdict, kept while its hidden cases still run.

Why a column of the submission's row, not a table of its own: it lives exactly as long as the row is running
(the claim that starts an attempt empties it, the stored verdict of record empties it), and the workers' role
may write it under the row rule it already has (a row that is done is never written again).

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("judge_submissions", sa.Column("public_verdict_json", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("judge_submissions") as batch:
        batch.drop_column("public_verdict_json")
