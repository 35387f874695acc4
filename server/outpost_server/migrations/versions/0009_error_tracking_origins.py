"""Error tracking: allowed browser origins per project, and the count of refused ones.

Revision ID: 0009_error_tracking_origins
Revises: 0008_error_events_and_tags
"""
import sqlalchemy as sa
from alembic import op

from outpost_server.db import UTCDateTime

revision = "0009_error_tracking_origins"
down_revision = "0008_error_events_and_tags"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("error_tracking_settings") as table:
        table.add_column(sa.Column("allowed_origins", sa.Text(), nullable=True))
        table.add_column(sa.Column("rejected_origin_count", sa.Integer(), nullable=False, server_default="0"))
        table.add_column(sa.Column("last_rejected_origin", sa.String(255), nullable=True))
        table.add_column(sa.Column("last_rejected_at", UTCDateTime(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("error_tracking_settings") as table:
        for column in ("last_rejected_at", "last_rejected_origin", "rejected_origin_count", "allowed_origins"):
            table.drop_column(column)
