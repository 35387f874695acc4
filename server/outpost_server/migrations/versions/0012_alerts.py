"""Alerts: rules per project, their recipients, the outbox of deliveries (the delivery log) and the counters
of evaluation. Everything goes with its project.

Revision ID: 0012_alerts
Revises: 0001_accounts
"""
import sqlalchemy as sa
from alembic import op

from outpost_server.db import UTCDateTime

revision = "0012_alerts"
down_revision = "0001_accounts"
branch_labels = ("alerts",)
# Deliveries and counters name errors.
depends_on = ("0005_error_tracking",)


def _reference(name: str, table: str, *, ondelete: str = "CASCADE", nullable: bool = False, **kwargs) -> sa.Column:
    return sa.Column(name, sa.Integer, sa.ForeignKey(f"{table}.id", ondelete=ondelete), nullable=nullable, **kwargs)


def upgrade() -> None:
    op.create_table(
        "alert_rules",
        sa.Column("id", sa.Integer, primary_key=True),
        _reference("project_id", "projects", index=True),
        sa.Column("name", sa.String(255), nullable=False),
        sa.Column("timespan_minutes", sa.Integer),
        sa.Column("quantity", sa.Integer),
        sa.Column("users", sa.Integer),
        sa.Column("on_new_error", sa.Boolean, nullable=False),
        sa.Column("on_regression", sa.Boolean, nullable=False),
        sa.Column("environments", sa.JSON, nullable=False),
        sa.Column("min_level", sa.String(16)),
        sa.Column("release", sa.String(255)),
        sa.Column("cooldown_minutes", sa.Integer, nullable=False),
        sa.Column("hourly_cap", sa.Integer, nullable=False),
        sa.Column("link_base", sa.String(255), nullable=False),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("updated_at", UTCDateTime, nullable=False),
    )
    op.create_table(
        "alert_recipients",
        sa.Column("id", sa.Integer, primary_key=True),
        _reference("rule_id", "alert_rules", index=True),
        sa.Column("recipient_type", sa.String(32), nullable=False),
        sa.Column("url", sa.String(2000), nullable=False),
        sa.Column("addresses", sa.JSON, nullable=False),
        sa.Column("encrypted_secret", sa.Text),
    )
    op.create_table(
        "alert_deliveries",
        sa.Column("id", sa.Integer, primary_key=True),
        _reference("rule_id", "alert_rules"),
        _reference("recipient_id", "alert_recipients", index=True),
        _reference("project_id", "projects", index=True),
        _reference("error_id", "error_tracking_errors", ondelete="SET NULL", nullable=True, index=True),
        sa.Column("trigger", sa.String(16), nullable=False),
        sa.Column("channel", sa.String(32), nullable=False),
        sa.Column("target", sa.String(255), nullable=False),
        sa.Column("details", sa.JSON, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("next_attempt_at", UTCDateTime, nullable=False),
        sa.Column("lease_owner", sa.String(128)),
        sa.Column("lease_expires_at", UTCDateTime),
        sa.Column("last_error", sa.String(1000)),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("finished_at", UTCDateTime),
    )
    op.create_index("ix_alert_deliveries_due", "alert_deliveries", ["status", "next_attempt_at"])
    op.create_index("ix_alert_deliveries_rule", "alert_deliveries", ["rule_id", "id"])
    op.create_table(
        "alert_error_states",
        _reference("rule_id", "alert_rules", primary_key=True),
        _reference("error_id", "error_tracking_errors", primary_key=True, index=True),
        sa.Column("window_started_at", UTCDateTime),
        sa.Column("window_events", sa.Integer, nullable=False),
        sa.Column("window_users", sa.JSON, nullable=False),
        sa.Column("last_fired_at", UTCDateTime),
    )
    op.create_table(
        "alert_hourly_counts",
        _reference("rule_id", "alert_rules", primary_key=True),
        sa.Column("hour", UTCDateTime, primary_key=True),
        sa.Column("triggered", sa.Integer, nullable=False),
    )
    op.create_table(
        "alert_rules_version",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("version", sa.Integer, nullable=False),
    )
    op.execute("INSERT INTO alert_rules_version (id, version) VALUES (1, 0)")


def downgrade() -> None:
    for table in ("alert_rules_version", "alert_hourly_counts", "alert_error_states", "alert_deliveries",
                  "alert_recipients", "alert_rules"):
        op.drop_table(table)
