"""Error tracking: how far each host's ingest spool has been digested.

Revision ID: 0010_spool_progress
Revises: 0009_error_tracking_origins
"""
import sqlalchemy as sa
from alembic import op

revision = "0010_spool_progress"
down_revision = "0009_error_tracking_origins"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "error_tracking_spool_progress",
        sa.Column("spool_id", sa.String(32), primary_key=True),
        sa.Column("last_entry_id", sa.BigInteger(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("error_tracking_spool_progress")
