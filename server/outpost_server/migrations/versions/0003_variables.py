"""Instance-level CI/CD variables.

Revision ID: 0003_variables
Revises: 0001_accounts
"""
import sqlalchemy as sa
from alembic import op

from outpost_server.db import UTCDateTime

revision = "0003_variables"
down_revision = "0001_accounts"
branch_labels = ("variables",)
depends_on = None


def upgrade() -> None:
    op.create_table(
        "ci_instance_variables",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("key", sa.String(255), nullable=False, unique=True),
        sa.Column("encrypted_value", sa.Text, nullable=False),
        sa.Column("variable_type", sa.Integer, nullable=False, server_default="1"),
        sa.Column("protected", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("masked", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("raw", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("description", sa.Text),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("updated_at", UTCDateTime, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("ci_instance_variables")
