"""Event tags at ingestion: one row per tag of each event, and the per-error value counts.

The counts (`error_tracking_error_tag_values`) are what the tag facets read, so a facet over an error
with any number of events reads a handful of rows instead of scanning its events. The writer runs
the statements built here as driver-level executemany, like its other per-event statements.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable

from sqlalchemy import case
from sqlalchemy.dialects import postgresql, sqlite

from outpost_server.error_tracking.digest.normalize import NormalizedEvent
from outpost_server.error_tracking.models import ErrorTagValue, EventTag

EVENT_TAGS = EventTag.__table__
TAG_VALUES = ErrorTagValue.__table__
EVENT_TAG_KEYS = ["error_id", "event_id", "key", "value", "received_at"]
# Tags the event row already holds as columns: counted, but not written again as tag rows.
COLUMN_TAGS = frozenset({"level", "release", "environment", "user"})
COUNT_KEYS = ["error_id", "key", "value", "times_seen", "first_seen_at", "last_seen_at"]


def count_upsert(dialect_name: str):
    """Adds a batch's counts to a value's row, widening its first and last seen."""
    dialect = postgresql if dialect_name == "postgresql" else sqlite
    statement = dialect.insert(TAG_VALUES)
    new = statement.excluded
    return statement.on_conflict_do_update(
        index_elements=["error_id", "key", "value"],
        set_={
            "times_seen": TAG_VALUES.c.times_seen + new.times_seen,
            "first_seen_at": case((new.first_seen_at < TAG_VALUES.c.first_seen_at, new.first_seen_at),
                                  else_=TAG_VALUES.c.first_seen_at),
            "last_seen_at": case((new.last_seen_at > TAG_VALUES.c.last_seen_at, new.last_seen_at),
                                 else_=TAG_VALUES.c.last_seen_at),
        },
    )


def tag_rows(events: Iterable[tuple[int, NormalizedEvent, dt.datetime]]) -> tuple[list[dict], list[dict]]:
    """(a row per tag of each (error id, event, received at) but the column tags, the batch's count per error,
    key and value)."""
    rows = []
    counts: dict[tuple[int, str, str], list] = {}
    for error_id, event, received_at in events:
        for key, value in event.tags:
            if key not in COLUMN_TAGS:
                rows.append({"error_id": error_id, "event_id": event.event_id, "key": key, "value": value,
                             "received_at": received_at})
            seen = counts.get((error_id, key, value))
            if seen is None:
                counts[(error_id, key, value)] = [1, event.occurred_at, event.occurred_at]
            else:
                seen[0] += 1
                seen[1] = min(seen[1], event.occurred_at)
                seen[2] = max(seen[2], event.occurred_at)
    # One order for every writer, so concurrent replicas lock the count rows in the same order.
    count_rows = [{"error_id": error_id, "key": key, "value": value, "times_seen": times, "first_seen_at": first,
                   "last_seen_at": last} for (error_id, key, value), (times, first, last) in sorted(counts.items())]
    return rows, count_rows
