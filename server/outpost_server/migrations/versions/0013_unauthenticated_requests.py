"""Requests without credentials per address and window, for the unauthenticated request throttles.

Revision ID: 0013_unauthenticated_requests
Revises: 0011_auth_failures
"""
import sqlalchemy as sa
from alembic import op

revision = "0013_unauthenticated_requests"
down_revision = "0011_auth_failures"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "unauthenticated_request_windows",
        sa.Column("throttle", sa.String(32), primary_key=True),
        sa.Column("ip", sa.String(64), primary_key=True),
        sa.Column("window", sa.Integer(), primary_key=True),
        sa.Column("requests", sa.Integer(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("unauthenticated_request_windows")
