"""An index for a platform's listing of its submissions (``GET /v1/submissions``), newest first.

Why: the listing's query is ``WHERE platform = ? [AND created_at < ? ...] ORDER BY created_at DESC, id DESC
LIMIT n``; without this index each page reads every submission of every platform.  With it a page is a seek
to the cursor's position in the caller's own rows.

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_judge_submissions_platform", "judge_submissions", ["platform", "created_at", "id"])


def downgrade() -> None:
    op.drop_index("ix_judge_submissions_platform", table_name="judge_submissions")
