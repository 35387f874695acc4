"""Accounts: ids are never reused (SQLite AUTOINCREMENT), and users get updated_at for GET /users' order_by.

Revision ID: 0014_accounts_autoincrement
Revises: 0013_unauthenticated_requests
"""
import sqlalchemy as sa
from alembic import op

from outpost_server.db import UTCDateTime
from outpost_server.migrations.rebuild import sqlite_autoincrement, sqlite_plain_ids

revision = "0014_accounts_autoincrement"
down_revision = "0013_unauthenticated_requests"
branch_labels = None
depends_on = None

TABLES = ("users", "personal_access_tokens", "namespaces", "projects")


def upgrade() -> None:
    op.add_column("users", sa.Column("updated_at", UTCDateTime))
    op.execute("UPDATE users SET updated_at = created_at")
    sqlite_autoincrement(*TABLES)


def downgrade() -> None:
    sqlite_plain_ids(*TABLES)
    with op.batch_alter_table("users") as table:
        table.drop_column("updated_at")
