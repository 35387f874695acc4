"""Accounts: users, personal access tokens, groups, projects, memberships; application settings.

Revision ID: 0001_accounts
Revises:
"""
import sqlalchemy as sa
from alembic import op

from outpost_server.db import UTCDateTime

revision = "0001_accounts"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "users",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("username", sa.String(255), nullable=False, unique=True),
        sa.Column("name", sa.String(255), nullable=False),
        sa.Column("email", sa.String(255), nullable=False, unique=True),
        sa.Column("password_digest", sa.String(255)),
        sa.Column("state", sa.String(32), nullable=False),
        sa.Column("is_admin", sa.Boolean, nullable=False),
        sa.Column("created_at", UTCDateTime, nullable=False),
    )
    op.create_table(
        "personal_access_tokens",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False, index=True),
        sa.Column("name", sa.String(255), nullable=False),
        sa.Column("token_digest", sa.String(64), nullable=False, unique=True),
        sa.Column("scopes", sa.JSON, nullable=False),
        sa.Column("revoked", sa.Boolean, nullable=False),
        sa.Column("expires_at", sa.Date),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("last_used_at", UTCDateTime),
    )
    op.create_table(
        "groups",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(255), nullable=False),
        sa.Column("path", sa.String(255), nullable=False),
        sa.Column("full_path", sa.String(1024), nullable=False, unique=True),
        sa.Column("full_name", sa.String(2048), nullable=False),
        sa.Column("description", sa.Text, nullable=False),
        sa.Column("visibility", sa.String(16), nullable=False),
        sa.Column("parent_id", sa.Integer, sa.ForeignKey("groups.id"), index=True),
        sa.Column("created_at", UTCDateTime, nullable=False),
    )
    op.create_table(
        "projects",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(255), nullable=False),
        sa.Column("path", sa.String(255), nullable=False),
        sa.Column("full_path", sa.String(1024), nullable=False, unique=True),
        sa.Column("description", sa.Text, nullable=False),
        sa.Column("visibility", sa.String(16), nullable=False),
        sa.Column("group_id", sa.Integer, sa.ForeignKey("groups.id"), index=True),
        sa.Column("creator_id", sa.Integer, sa.ForeignKey("users.id"), nullable=False),
        sa.Column("default_branch", sa.String(255), nullable=False),
        sa.Column("monitor_access_level", sa.String(16), nullable=False),
        sa.Column("created_at", UTCDateTime, nullable=False),
    )
    for table, target in (("group_members", "groups"), ("project_members", "projects")):
        column = "group_id" if target == "groups" else "project_id"
        op.create_table(
            table,
            sa.Column("id", sa.Integer, primary_key=True),
            sa.Column(column, sa.Integer, sa.ForeignKey(f"{target}.id", ondelete="CASCADE"), nullable=False,
                      index=True),
            sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False, index=True),
            sa.Column("access_level", sa.Integer, nullable=False),
            sa.Column("expires_at", sa.Date),
            sa.Column("created_at", UTCDateTime, nullable=False),
            sa.UniqueConstraint(column, "user_id"),
        )
    # Instance-wide settings and flags (plan limits, demo marker, ...), one JSON value per key.
    op.create_table(
        "application_settings",
        sa.Column("key", sa.String(255), primary_key=True),
        sa.Column("value", sa.JSON, nullable=False),
    )


def downgrade() -> None:
    for table in ("application_settings", "project_members", "group_members", "projects", "groups",
                  "personal_access_tokens", "users"):
        op.drop_table(table)
