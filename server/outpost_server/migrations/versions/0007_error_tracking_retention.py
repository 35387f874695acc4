"""Error tracking retention and shared rate limits: per-project overrides, the pruning lease and its runs,
pruning indexes, and per-minute event counts shared by replicas.

Revision ID: 0007_error_tracking_retention
Revises: 0006_error_list_indexes
"""
import sqlalchemy as sa
from alembic import op

from outpost_server.db import UTCDateTime

revision = "0007_error_tracking_retention"
down_revision = "0006_error_list_indexes"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Every event now keeps its payload until the pruner removes both; the column counts stored events.
    op.execute("ALTER TABLE error_tracking_errors RENAME COLUMN payloads_kept TO stored_events")
    op.execute("UPDATE error_tracking_errors SET stored_events = (SELECT count(*) FROM error_tracking_error_events"
               " WHERE error_tracking_error_events.error_id = error_tracking_errors.id)")
    op.create_table(
        "error_tracking_retention_overrides",
        sa.Column("project_id", sa.Integer, sa.ForeignKey("projects.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("retention_days", sa.Integer),
        sa.Column("events_per_error", sa.Integer),
        sa.Column("max_stored_bytes", sa.BigInteger),
    )
    lease = op.create_table(
        "error_tracking_prune_lease",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("owner", sa.String(64)),
        sa.Column("expires_at", UTCDateTime),
        sa.Column("last_finished_at", UTCDateTime),
    )
    op.bulk_insert(lease, [{"id": 1, "owner": None, "expires_at": None, "last_finished_at": None}])
    op.create_table(
        "error_tracking_prune_runs",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("worker_id", sa.String(64), nullable=False),
        sa.Column("started_at", UTCDateTime, nullable=False),
        sa.Column("finished_at", UTCDateTime),
        sa.Column("events_deleted", sa.Integer, nullable=False),
        sa.Column("bytes_deleted", sa.BigInteger, nullable=False),
    )
    op.create_table(
        "error_tracking_rate_windows",
        sa.Column("project_id", sa.Integer, sa.ForeignKey("projects.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("window", sa.Integer, primary_key=True),
        sa.Column("events", sa.Integer, nullable=False),
    )
    # Age pruning walks a project's oldest arrivals; the per-error cap walks an error's events by id.
    op.create_index("ix_error_tracking_error_events_project_received", "error_tracking_error_events",
                    ["project_id", "received_at", "id"])
    op.create_index("ix_error_tracking_error_events_error_id_id", "error_tracking_error_events", ["error_id", "id"])
    op.create_index("ix_error_tracking_event_payloads_error_event", "error_tracking_event_payloads",
                    ["error_id", "event_id"])


def downgrade() -> None:
    op.drop_index("ix_error_tracking_event_payloads_error_event", "error_tracking_event_payloads")
    op.drop_index("ix_error_tracking_error_events_error_id_id", "error_tracking_error_events")
    op.drop_index("ix_error_tracking_error_events_project_received", "error_tracking_error_events")
    op.drop_table("error_tracking_rate_windows")
    op.drop_table("error_tracking_prune_runs")
    op.drop_table("error_tracking_prune_lease")
    op.drop_table("error_tracking_retention_overrides")
    op.execute("ALTER TABLE error_tracking_errors RENAME COLUMN stored_events TO payloads_kept")
