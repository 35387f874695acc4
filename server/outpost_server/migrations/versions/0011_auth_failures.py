"""Failed authentications per address and the bans they lead to.

Revision ID: 0011_auth_failures
Revises: 0007_namespaces
"""
import sqlalchemy as sa
from alembic import op

from outpost_server.db import UTCDateTime

revision = "0011_auth_failures"
down_revision = "0007_namespaces"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "auth_failures",
        sa.Column("ip", sa.String(64), primary_key=True),
        sa.Column("window_started_at", UTCDateTime(), nullable=False),
        sa.Column("failures", sa.Integer(), nullable=False),
        sa.Column("banned_until", UTCDateTime(), nullable=True),
    )


def downgrade() -> None:
    op.drop_table("auth_failures")
