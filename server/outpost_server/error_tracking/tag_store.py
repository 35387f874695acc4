"""Writing event tags at ingestion: one row per tag of each event, and the per-error value counts.

The counts (`error_tracking_error_tag_values`) are what the tag facets read, so a facet over an error
with any number of events reads a handful of rows instead of scanning its events.
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import case, insert
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection

from .models import ErrorTagValue, EventTag
from .normalize import NormalizedEvent

EVENT_TAGS = EventTag.__table__
TAG_VALUES = ErrorTagValue.__table__
_UPSERTS: dict[str, object] = {}


def _upsert_counts(dialect_name: str):
    if dialect_name not in _UPSERTS:
        dialect = postgresql if dialect_name == "postgresql" else sqlite
        statement = dialect.insert(TAG_VALUES)
        new = statement.excluded
        _UPSERTS[dialect_name] = statement.on_conflict_do_update(
            index_elements=["error_id", "key", "value"],
            set_={
                "times_seen": TAG_VALUES.c.times_seen + new.times_seen,
                "first_seen_at": case((new.first_seen_at < TAG_VALUES.c.first_seen_at, new.first_seen_at),
                                      else_=TAG_VALUES.c.first_seen_at),
                "last_seen_at": case((new.last_seen_at > TAG_VALUES.c.last_seen_at, new.last_seen_at),
                                     else_=TAG_VALUES.c.last_seen_at),
            },
        )
    return _UPSERTS[dialect_name]


def store_tags(connection: Connection, events: Iterable[tuple[int, NormalizedEvent]]) -> None:
    """Records the tags of (error id, event) pairs stored in the caller's transaction."""
    rows = []
    counts: dict[tuple[int, str, str], list] = {}
    for error_id, event in events:
        for key, value in event.tags:
            rows.append({"error_id": error_id, "event_id": event.event_id, "key": key, "value": value})
            seen = counts.get((error_id, key, value))
            if seen is None:
                counts[(error_id, key, value)] = [1, event.occurred_at, event.occurred_at]
            else:
                seen[0] += 1
                seen[1] = min(seen[1], event.occurred_at)
                seen[2] = max(seen[2], event.occurred_at)
    if not rows:
        return
    connection.execute(insert(EVENT_TAGS), rows)
    connection.execute(_upsert_counts(connection.dialect.name), [
        {"error_id": error_id, "key": key, "value": value, "times_seen": times, "first_seen_at": first,
         "last_seen_at": last}
        for (error_id, key, value), (times, first, last) in sorted(counts.items(), key=_row_order)
    ])


def _row_order(item: tuple[tuple[int, str, str], list]) -> tuple[int, str, str]:
    # One order for every writer, so concurrent replicas lock the count rows in the same order.
    return item[0]
