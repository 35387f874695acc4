"""Cron monitors: monitors per project, their state per environment, their check-ins, and the clock's
lease row. Everything goes with its project.

Revision ID: 0023_monitors
Revises: 0022_lower_unique_names
"""
import sqlalchemy as sa
from alembic import op

from outpost_server.db import UTCDateTime

revision = "0023_monitors"
down_revision = "0022_lower_unique_names"
branch_labels = None
depends_on = None


def _reference(name: str, table: str) -> sa.Column:
    return sa.Column(name, sa.Integer, sa.ForeignKey(f"{table}.id", ondelete="CASCADE"), nullable=False)


def upgrade() -> None:
    op.create_table(
        "monitors",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("guid", sa.String(32), nullable=False, unique=True),
        _reference("project_id", "projects"),
        sa.Column("slug", sa.String(50), nullable=False),
        sa.Column("name", sa.String(128), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("is_muted", sa.Boolean, nullable=False),
        sa.Column("schedule_type", sa.String(16), nullable=False),
        sa.Column("schedule", sa.String(255), nullable=False),
        sa.Column("schedule_unit", sa.String(16)),
        sa.Column("checkin_margin", sa.Integer),
        sa.Column("max_runtime", sa.Integer),
        sa.Column("timezone", sa.String(64)),
        sa.Column("failure_issue_threshold", sa.Integer),
        sa.Column("recovery_threshold", sa.Integer),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.UniqueConstraint("project_id", "slug"),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_monitors_project_id", "monitors", ["project_id"])
    op.create_table(
        "monitor_environments",
        sa.Column("id", sa.Integer, primary_key=True),
        _reference("monitor_id", "monitors"),
        sa.Column("environment", sa.String(64), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("last_checkin", UTCDateTime),
        sa.Column("next_checkin", UTCDateTime),
        sa.Column("next_checkin_latest", UTCDateTime),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.UniqueConstraint("monitor_id", "environment"),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_monitor_environments_due", "monitor_environments", ["next_checkin_latest"])
    op.create_table(
        "monitor_checkins",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("guid", sa.String(32), nullable=False),
        _reference("monitor_id", "monitors"),
        _reference("monitor_environment_id", "monitor_environments"),
        _reference("project_id", "projects"),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("duration", sa.Integer),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("updated_at", UTCDateTime, nullable=False),
        sa.Column("expected_time", UTCDateTime),
        sa.Column("timeout_at", UTCDateTime),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_monitor_checkins_guid", "monitor_checkins", ["guid"])
    op.create_index("ix_monitor_checkins_monitor_id", "monitor_checkins", ["monitor_id"])
    op.create_index("ix_monitor_checkins_environment", "monitor_checkins", ["monitor_environment_id", "id"])
    op.create_index("ix_monitor_checkins_running", "monitor_checkins", ["status", "timeout_at"])
    op.create_index("ix_monitor_checkins_age", "monitor_checkins", ["project_id", "created_at"])
    op.create_table(
        "monitor_clock",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("owner", sa.String(64)),
        sa.Column("expires_at", UTCDateTime),
        sa.Column("last_pruned_at", UTCDateTime),
    )
    op.execute("INSERT INTO monitor_clock (id) VALUES (1)")


def downgrade() -> None:
    for table in ("monitor_clock", "monitor_checkins", "monitor_environments", "monitors"):
        op.drop_table(table)
