"""Error tracking: the events of an error in time order, each event's tags, and tag value counts per error.

Events stored before this revision are counted in the tags their rows know (level, release, environment,
user), and the payloads they kept are scrubbed as new events are.

Revision ID: 0008_error_events_and_tags
Revises: 0007_error_tracking_retention
"""
import json

import sqlalchemy as sa
from alembic import op

from outpost_server.db import UTCDateTime
from outpost_server.error_tracking.digest.scrubbing import scrub_event

revision = "0008_error_events_and_tags"
down_revision = "0007_error_tracking_retention"
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
    connection = op.get_bind()
    _tags_from_event_rows(connection)
    _scrub_kept_payloads(connection)


MAX_TAG = 200
SCRUB_BATCH = 500


def _tags_from_event_rows(connection: sa.Connection) -> None:
    """Counts of the tags the event rows hold as columns (they are not repeated as tag rows)."""
    events = sa.table("error_tracking_error_events", *(sa.column(name) for name in (
        "error_id", "occurred_at", "level", "release", "environment", "user_key")))
    counts = sa.table("error_tracking_error_tag_values", *(sa.column(name) for name in (
        "error_id", "key", "value", "times_seen", "first_seen_at", "last_seen_at")))
    for key, column in (("level", events.c.level), ("release", events.c.release),
                        ("environment", events.c.environment), ("user", events.c.user_key)):
        value = sa.func.substr(column, 1, MAX_TAG)
        connection.execute(counts.insert().from_select(
            ["error_id", "key", "value", "times_seen", "first_seen_at", "last_seen_at"],
            sa.select(events.c.error_id, sa.literal(key, sa.String), value, sa.func.count(),
                      sa.func.min(events.c.occurred_at), sa.func.max(events.c.occurred_at))
            .where(column.is_not(None)).group_by(events.c.error_id, value)))


def _scrub_kept_payloads(connection: sa.Connection) -> None:
    payloads = sa.table("error_tracking_event_payloads", sa.column("id"), sa.column("payload", sa.LargeBinary))
    last_id = 0
    while True:
        rows = connection.execute(sa.select(payloads.c.id, payloads.c.payload).where(payloads.c.id > last_id)
                                  .order_by(payloads.c.id).limit(SCRUB_BATCH)).all()
        if not rows:
            return
        for row_id, blob in rows:
            last_id = row_id
            try:
                document = json.loads(blob)
            except ValueError:
                continue
            if isinstance(document, dict) and scrub_event(document):
                scrubbed = json.dumps(document, separators=(",", ":"), ensure_ascii=False).encode()
                connection.execute(payloads.update().where(payloads.c.id == row_id).values(payload=scrubbed))


def downgrade() -> None:
    op.drop_table("error_tracking_error_tag_values")
    op.drop_table("error_tracking_event_tags")
    op.drop_index("ix_error_tracking_error_events_timeline", "error_tracking_error_events")
