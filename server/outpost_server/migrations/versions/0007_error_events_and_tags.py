"""Error tracking: the events of an error in time order, each event's tags, and tag value counts per error.

Revision ID: 0007_error_events_and_tags
Revises: 0006_error_list_indexes
"""
import sqlalchemy as sa
from alembic import op

from outpost_server.db import UTCDateTime

revision = "0007_error_events_and_tags"
down_revision = "0006_error_list_indexes"
branch_labels = None
depends_on = None


def _error_id(primary_key: bool = False) -> sa.Column:
    return sa.Column("error_id", sa.Integer, sa.ForeignKey("error_tracking_errors.id", ondelete="CASCADE"),
                     nullable=False, primary_key=primary_key)


def upgrade() -> None:
    op.create_index("ix_error_tracking_error_events_timeline", "error_tracking_error_events",
                    ["error_id", "occurred_at", "id"])
    op.create_table(
        "error_tracking_event_tags",
        sa.Column("id", sa.Integer, primary_key=True),
        _error_id(),
        sa.Column("event_id", sa.String(32), nullable=False),
        sa.Column("key", sa.String(200), nullable=False),
        sa.Column("value", sa.String(200), nullable=False),
    )
    op.create_index("ix_error_tracking_event_tags_lookup", "error_tracking_event_tags",
                    ["error_id", "key", "value", "event_id"])
    op.create_index("ix_error_tracking_event_tags_event", "error_tracking_event_tags", ["event_id", "error_id"])
    op.create_table(
        "error_tracking_error_tag_values",
        _error_id(primary_key=True),
        sa.Column("key", sa.String(200), primary_key=True),
        sa.Column("value", sa.String(200), primary_key=True),
        sa.Column("times_seen", sa.Integer, nullable=False),
        sa.Column("first_seen_at", UTCDateTime, nullable=False),
        sa.Column("last_seen_at", UTCDateTime, nullable=False),
    )
    op.create_index("ix_error_tracking_error_tag_values_top", "error_tracking_error_tag_values",
                    ["error_id", "key", "times_seen"])


def downgrade() -> None:
    op.drop_table("error_tracking_error_tag_values")
    op.drop_table("error_tracking_event_tags")
    op.drop_index("ix_error_tracking_error_events_timeline", "error_tracking_error_events")
