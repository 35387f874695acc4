"""Vulnerability exports: PDF, send_email, filters and report data, archive exports; vulnerability ids are
never reused (SQLite AUTOINCREMENT).

Revision ID: 0015_export_options
Revises: 0004_vulnerabilities
"""
import sqlalchemy as sa
from alembic import op

from outpost_server.migrations.rebuild import sqlite_autoincrement, sqlite_plain_ids

revision = "0015_export_options"
down_revision = "0004_vulnerabilities"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # ADD COLUMN only: vulnerability_exports already has AUTOINCREMENT and keeps its definition.
    op.add_column("vulnerability_exports", sa.Column("send_email", sa.Boolean, nullable=False,
                                                     server_default=sa.false()))
    op.add_column("vulnerability_exports", sa.Column("filters", sa.JSON))
    op.add_column("vulnerability_exports", sa.Column("report_data", sa.JSON))
    # "vulnerability" (the vulnerability exports API) or "archive" (vulnerability_archive_exports).
    op.add_column("vulnerability_exports", sa.Column("kind", sa.String(16), nullable=False,
                                                     server_default="vulnerability"))
    op.add_column("vulnerability_exports", sa.Column("start_date", sa.Date))
    op.add_column("vulnerability_exports", sa.Column("end_date", sa.Date))
    op.add_column("vulnerability_exports", sa.Column("api_base_url", sa.String(1024)))
    op.create_index("ix_vulnerability_exports_author_kind_status", "vulnerability_exports",
                    ["author_id", "kind", "status"])
    sqlite_autoincrement("vulnerabilities", "vulnerability_notes")


def downgrade() -> None:
    sqlite_plain_ids("vulnerabilities", "vulnerability_notes")
    op.drop_index("ix_vulnerability_exports_author_kind_status", table_name="vulnerability_exports")
    with op.batch_alter_table("vulnerability_exports") as table:
        for column in ("api_base_url", "end_date", "start_date", "kind", "report_data", "filters", "send_email"):
            table.drop_column(column)
