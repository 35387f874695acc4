"""Error tracking: settings, client keys, errors, events, users, hourly counts, release sessions.

Revision ID: 0005_error_tracking
Revises: 0001_accounts
"""
import sqlalchemy as sa
from alembic import op

from outpost_server.db import UTCDateTime

revision = "0005_error_tracking"
down_revision = "0001_accounts"
branch_labels = ("error_tracking",)
depends_on = None


def _project_id(index: bool = True) -> sa.Column:
    return sa.Column("project_id", sa.Integer, sa.ForeignKey("projects.id", ondelete="CASCADE"), nullable=False,
                     index=index)


def _error_id(primary_key: bool = False) -> sa.Column:
    return sa.Column("error_id", sa.Integer, sa.ForeignKey("error_tracking_errors.id", ondelete="CASCADE"),
                     nullable=False, primary_key=primary_key, index=not primary_key)


def upgrade() -> None:
    op.create_table(
        "error_tracking_settings",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("project_id", sa.Integer, sa.ForeignKey("projects.id", ondelete="CASCADE"), nullable=False,
                  unique=True),
        sa.Column("enabled", sa.Boolean, nullable=False),
        sa.Column("integrated", sa.Boolean, nullable=False),
        sa.Column("api_url", sa.String(255)),
        sa.Column("encrypted_token", sa.Text),
        sa.Column("project_name", sa.String(255)),
        sa.Column("organization_name", sa.String(255)),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("updated_at", UTCDateTime, nullable=False),
    )
    op.create_table(
        "error_tracking_client_keys",
        sa.Column("id", sa.Integer, primary_key=True),
        _project_id(),
        sa.Column("public_key", sa.String(255), nullable=False, unique=True),
        sa.Column("active", sa.Boolean, nullable=False),
        sa.Column("created_at", UTCDateTime, nullable=False),
    )
    op.create_table(
        "error_tracking_errors",
        sa.Column("id", sa.Integer, primary_key=True),
        _project_id(),
        sa.Column("fingerprint", sa.String(64), nullable=False),
        sa.Column("title", sa.String(255), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("exception_type", sa.String(255)),
        sa.Column("culprit", sa.String(255)),
        sa.Column("message", sa.Text),
        sa.Column("level", sa.String(16), nullable=False),
        sa.Column("platform", sa.String(255)),
        sa.Column("count", sa.Integer, nullable=False),
        sa.Column("users_count", sa.Integer, nullable=False),
        sa.Column("first_seen_at", UTCDateTime, nullable=False),
        sa.Column("last_seen_at", UTCDateTime, nullable=False, index=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("regressed", sa.Boolean, nullable=False),
        sa.Column("first_release", sa.String(255)),
        sa.Column("last_release", sa.String(255)),
        sa.Column("last_environment", sa.String(255)),
        sa.Column("payloads_kept", sa.Integer, nullable=False),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("updated_at", UTCDateTime, nullable=False),
        sa.UniqueConstraint("project_id", "fingerprint"),
    )
    op.create_table(
        "error_tracking_error_events",
        sa.Column("id", sa.Integer, primary_key=True),
        _project_id(index=False),
        _error_id(),
        sa.Column("event_id", sa.String(32), nullable=False),
        sa.Column("occurred_at", UTCDateTime, nullable=False),
        sa.Column("received_at", UTCDateTime, nullable=False),
        sa.Column("level", sa.String(16), nullable=False),
        sa.Column("release", sa.String(255)),
        sa.Column("environment", sa.String(255)),
        sa.Column("user_key", sa.String(255)),
        sa.UniqueConstraint("project_id", "event_id"),
    )
    op.create_table(
        "error_tracking_event_payloads",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("error_id", sa.Integer, sa.ForeignKey("error_tracking_errors.id", ondelete="CASCADE"),
                  nullable=False),
        sa.Column("event_id", sa.String(32), nullable=False),
        sa.Column("payload", sa.LargeBinary, nullable=False),
    )
    op.create_index("ix_error_tracking_event_payloads_error_id_id", "error_tracking_event_payloads", ["error_id", "id"])
    op.create_table(
        "error_tracking_error_users",
        _error_id(primary_key=True),
        sa.Column("user_key", sa.String(255), primary_key=True),
    )
    op.create_table(
        "error_tracking_error_hourly_counts",
        _error_id(primary_key=True),
        sa.Column("hour", UTCDateTime, primary_key=True),
        sa.Column("count", sa.Integer, nullable=False),
    )
    op.create_table(
        "error_tracking_sessions",
        sa.Column("id", sa.Integer, primary_key=True),
        _project_id(index=False),
        sa.Column("sid", sa.String(255), nullable=False),
        sa.Column("release", sa.String(255), nullable=False),
        sa.Column("environment", sa.String(255), nullable=False),
        sa.Column("started_at", UTCDateTime, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("errors", sa.Integer, nullable=False),
        sa.Column("updated_at", UTCDateTime, nullable=False),
        sa.UniqueConstraint("project_id", "sid"),
    )
    op.create_table(
        "error_tracking_session_aggregates",
        sa.Column("id", sa.Integer, primary_key=True),
        _project_id(),
        sa.Column("release", sa.String(255), nullable=False),
        sa.Column("environment", sa.String(255), nullable=False),
        sa.Column("started_at", UTCDateTime, nullable=False),
        sa.Column("exited", sa.Integer, nullable=False),
        sa.Column("errored", sa.Integer, nullable=False),
        sa.Column("abnormal", sa.Integer, nullable=False),
        sa.Column("crashed", sa.Integer, nullable=False),
    )


def downgrade() -> None:
    for table in (
        "error_tracking_session_aggregates",
        "error_tracking_sessions",
        "error_tracking_error_hourly_counts",
        "error_tracking_error_users",
        "error_tracking_event_payloads",
        "error_tracking_error_events",
        "error_tracking_errors",
        "error_tracking_client_keys",
        "error_tracking_settings",
    ):
        op.drop_table(table)
