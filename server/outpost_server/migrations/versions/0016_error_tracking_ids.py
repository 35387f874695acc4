"""Error tracking: the ids the API shows are never reused (SQLite AUTOINCREMENT).

Revision ID: 0016_error_tracking_ids
Revises: 0010_spool_progress
"""
from outpost_server.migrations.rebuild import sqlite_autoincrement, sqlite_plain_ids

revision = "0016_error_tracking_ids"
down_revision = "0010_spool_progress"
branch_labels = None
depends_on = None

TABLES = ("error_tracking_errors", "error_tracking_client_keys")


def upgrade() -> None:
    sqlite_autoincrement(*TABLES)


def downgrade() -> None:
    sqlite_plain_ids(*TABLES)
