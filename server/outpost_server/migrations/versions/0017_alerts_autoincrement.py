"""Alerts: the ids the API shows are never reused (SQLite AUTOINCREMENT).

Revision ID: 0017_alerts_autoincrement
Revises: 0012_alerts
"""
from outpost_server.migrations.rebuild import sqlite_autoincrement, sqlite_plain_ids

revision = "0017_alerts_autoincrement"
down_revision = "0012_alerts"
branch_labels = None
depends_on = None

TABLES = ("alert_rules", "alert_recipients", "alert_deliveries")


def upgrade() -> None:
    sqlite_autoincrement(*TABLES)


def downgrade() -> None:
    sqlite_plain_ids(*TABLES)
