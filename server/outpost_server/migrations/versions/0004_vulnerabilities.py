"""Vulnerabilities, their notes, and vulnerability exports with their stored CSV chunks.

Revision ID: 0004_vulnerabilities
Revises: 0001_accounts
"""
import sqlalchemy as sa
from alembic import op

from outpost_server.db import UTCDateTime

revision = "0004_vulnerabilities"
down_revision = "0001_accounts"
branch_labels = ("vulnerabilities",)
depends_on = None


def _user_reference(name: str) -> sa.Column:
    return sa.Column(name, sa.Integer, sa.ForeignKey("users.id", ondelete="SET NULL"))


def upgrade() -> None:
    op.create_table(
        "vulnerabilities",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("project_id", sa.Integer, sa.ForeignKey("projects.id", ondelete="CASCADE"), nullable=False),
        sa.Column("fingerprint", sa.String(64), nullable=False),
        sa.Column("report_type", sa.String(32), nullable=False),
        sa.Column("scanner_external_id", sa.String(255), nullable=False),
        sa.Column("scanner_name", sa.String(255), nullable=False),
        sa.Column("title", sa.String(255), nullable=False),
        sa.Column("description", sa.Text),
        sa.Column("solution", sa.Text),
        sa.Column("severity", sa.String(16), nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("identifiers", sa.JSON, nullable=False),
        sa.Column("location", sa.JSON, nullable=False),
        sa.Column("cvss_vectors", sa.JSON, nullable=False),
        sa.Column("resolved_on_default_branch", sa.Boolean, nullable=False),
        sa.Column("dismissal_reason", sa.String(32)),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("updated_at", UTCDateTime, nullable=False),
        sa.Column("confirmed_at", UTCDateTime),
        _user_reference("confirmed_by_id"),
        sa.Column("resolved_at", UTCDateTime),
        _user_reference("resolved_by_id"),
        sa.Column("dismissed_at", UTCDateTime),
        _user_reference("dismissed_by_id"),
        sa.UniqueConstraint("project_id", "fingerprint"),
    )
    op.create_index("ix_vulnerabilities_project_scanner", "vulnerabilities",
                    ["project_id", "report_type", "scanner_external_id"])
    # Exports walk a project's vulnerabilities in id order.
    op.create_index("ix_vulnerabilities_project_id_id", "vulnerabilities", ["project_id", "id"])
    op.create_table(
        "vulnerability_notes",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("vulnerability_id", sa.Integer, sa.ForeignKey("vulnerabilities.id", ondelete="CASCADE"),
                  nullable=False, index=True),
        sa.Column("author_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column("note", sa.Text, nullable=False),
        sa.Column("system", sa.Boolean, nullable=False),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("updated_at", UTCDateTime, nullable=False),
    )
    op.create_table(
        "vulnerability_exports",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("author_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False, index=True),
        sa.Column("project_id", sa.Integer, sa.ForeignKey("projects.id", ondelete="CASCADE")),
        sa.Column("group_id", sa.Integer, sa.ForeignKey("groups.id", ondelete="CASCADE")),
        sa.Column("format", sa.String(16), nullable=False),
        sa.Column("status", sa.String(16), nullable=False, index=True),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("started_at", UTCDateTime),
        sa.Column("finished_at", UTCDateTime),
        sa.Column("expires_at", UTCDateTime, nullable=False, index=True),
        sa.Column("file_name", sa.String(1024)),
        sa.Column("byte_size", sa.Integer),
        sa.Column("lease_owner", sa.String(64)),
        sa.Column("lease_expires_at", UTCDateTime),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("error", sa.Text),
        # Never reuse the id of a deleted export: clients remember exports by id.
        sqlite_autoincrement=True,
    )
    op.create_table(
        "vulnerability_export_chunks",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("export_id", sa.Integer, sa.ForeignKey("vulnerability_exports.id", ondelete="CASCADE"),
                  nullable=False),
        sa.Column("position", sa.Integer, nullable=False),
        sa.Column("data", sa.LargeBinary, nullable=False),
        sa.UniqueConstraint("export_id", "position"),
    )


def downgrade() -> None:
    for table in ("vulnerability_export_chunks", "vulnerability_exports", "vulnerability_notes", "vulnerabilities"):
        op.drop_table(table)
